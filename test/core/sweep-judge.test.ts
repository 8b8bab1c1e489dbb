import { describe, expect, it } from 'vitest';
import { judgeSweep, type SweepJudgeInput } from '../../src/gates/ab/judge/sweep.js';
import { claimSpecOf } from '../../src/gates/ab/claim.js';
import { GateSchema } from '../../src/config/gate.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { planSweep } from '../../src/plan/sweep.js';
import { formatReason } from '../../src/verdict/reasons.js';
import { sweepGrid, sweepMethodLines, sweepOf } from '../../src/report/sweepTable.js';
import { scalingPoints, scalingSpec } from '../../src/report/sweepPlot.js';
import { flatRows, serializeCsv, serializeMarkdown } from '../../src/report/exports.js';
import { armRows, legRows } from '../../src/report/rows.js';
import { seriesKeyOf } from '../../src/results/seriesKey.js';
import { ledgerEntry } from '../../src/results/ledger.js';
import type { LegRecord, RunResult } from '../../src/results/types.js';
import type { SweepRecord } from '../../src/results/comparison.js';
import type { TokenWord } from '../../src/verdict/words.js';
import { leg } from '../gates/fixtures.js';

// A sweep through the one judge: each arm against the baseline as an A/B of the same blocks' legs, Holm's
// step-down over the arms, Bonferroni intervals shown; then the per-arm table, the scaling plot's points,
// the exports' rows and the series key, all read from the one judgement.

const recipe = RecipeSchema.parse({
  schemaVersion: 1, name: 'r-sweep', profile: 'nh-ref', sourceDir: '.', buildDir: 'b-{arch}',
  configure: ['true'], build: ['true'], driver: { argv: ['true'], binary: 'x', env: {} },
  flags: { THREADS: { env: 'T_THREADS', on: '2', off: '1', values: ['1', '2', '4', '8'], default: '2' } },
});
const design = planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4'], blocks: 4, mode: 'decode', warmupLegs: 0 });
const gateSpec = (metrics: unknown[], combine = 'all') => claimSpecOf(GateSchema.parse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', criteria: { statement: 's', combine, refutationFails: true, metrics } }));
const faster = (pct: number) => ({ metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: pct });

// The design's legs with per-token times per arm value, optionally one leg's verdict. Each arm's 4 legs spread
// ±0.2% around its value and keep it as their median.
const SPREAD = [0.998, 1, 1, 1.002];
function legs(perToken: Record<string, number>, bad?: { index: number; verdict: TokenWord }): LegRecord[] {
  return design.plan.legs.map((p) => {
    const v = perToken[p.arm.slice(p.arm.indexOf('=') + 1)]! * SPREAD[Number(p.label.split('#')[1]) - 1]!;
    const l = leg(p.index, 'A', v, bad?.index === p.index ? { verdict: bad.verdict } : {});
    return { ...l, arm: p.arm, label: p.label, flagEnv: { T_THREADS: p.arm.slice(8) } };
  });
}

const input = (ls: LegRecord[], spec: SweepJudgeInput['spec']): SweepJudgeInput => ({
  spec, flag: { name: 'THREADS', env: 'T_THREADS', on: '2' }, design, legs: ls, warmupLegs: 0, plannedJudgedLegs: 12, deviations: [], seed: 1,
});

describe('judging a sweep', () => {
  it('report-only: each arm against the baseline with a Bonferroni interval, nothing decided, MEASURED, the method stated', () => {
    const j = judgeSweep(input(legs({ 1: 1, 2: 0.5, 4: 0.8 }), null));
    expect(j.verdict.word).toBe('MEASURED');
    expect(j.verdict.exitClass).toBe('passed');
    const s = j.comparison.kind === 'ab' ? j.comparison.sweep! : null;
    expect(j.comparison.kind === 'ab' && j.comparison.form).toBe('sweep');
    expect(s!.correction).toMatchObject({ method: 'holm', comparisons: 2, intervals: 'bonferroni', familyAlpha: 0.05 });
    expect(s!.correction.intervalLevel).toBeCloseTo(0.975, 12);
    expect(s!.comparisons.map((c) => [c.arm, c.word, c.holm[0]!.step])).toEqual([['THREADS=2', null, null], ['THREADS=4', null, null]]);
    expect(s!.comparisons[0]!.ratio.status === 'measured' && s!.comparisons[0]!.ratio.value).toBeCloseTo(0.5, 2);
    expect(s!.comparisons[0]!.interval!.level).toBeCloseTo(0.975, 12);
    expect(s!.arms.map((a) => [a.arm, a.baseline, a.n])).toEqual([['THREADS=1', true, 4], ['THREADS=2', false, 4], ['THREADS=4', false, 4]]);
    expect(j.verdict.reasons.map(formatReason).join('\n')).toMatch(/MULTIPLE_COMPARISONS: nothing decided \(no claim registered\) over the 2 comparison\(s\) against THREADS=1; intervals Bonferroni-adjusted to 97\.5% so all 2 cover at once/);
    expect(Object.keys(j.quantities)).toEqual(['ratio@THREADS=2', 'ratio@THREADS=4']);
  });

  it('with a criterion: each arm its word by Holm, combined across the arms by the gate\'s rule', () => {
    const ls = legs({ 1: 1, 2: 0.5, 4: 0.97 });
    const all = judgeSweep(input(ls, gateSpec([faster(10)])));
    const s = all.comparison.kind === 'ab' ? all.comparison.sweep! : null;
    expect(s!.comparisons.map((c) => [c.arm, c.word])).toEqual([['THREADS=2', 'SUPPORTED'], ['THREADS=4', 'REFUTED']]);
    expect(s!.comparisons.map((c) => c.holm[0]!.step)).toEqual([1, 1]);
    expect(all.verdict.word).toBe('REFUTED');
    expect(all.verdict.claim).toMatch(/each arm against THREADS=1, combined by 'all' across the 2 arms/);
    expect(all.verdict.reasons.map(formatReason).join('\n')).toMatch(/CRITERION: B = THREADS=2, A = THREADS=1: perOutputTokenRatio: 97\.5% interval \[[\d.]+, [\d.]+\] lies entirely within the criterion B\/A ≤ 0\.9000; decided in round 1 of Holm's step-down over 2 \(α 0\.025\)/);
    expect(judgeSweep(input(ls, gateSpec([faster(10)], 'any'))).verdict.word).toBe('SUPPORTED');
  });

  it('an arm whose interval straddles the bound is UNRESOLVED, shown at the Bonferroni level', () => {
    const ls = legs({ 1: 1, 2: 0.5, 4: 0.9 });
    const j = judgeSweep(input(ls, gateSpec([faster(10)])));
    const c = j.comparison.kind === 'ab' ? j.comparison.sweep!.comparisons[1]! : null;
    expect(c!.word).toBe('UNRESOLVED');
    expect(c!.holm[0]!.step).toBeNull();
    expect(c!.metrics[0]!.text).toMatch(/not decided at any Holm step \(shown at the Bonferroni level 97\.5%\)/);
    expect(j.verdict.word).toBe('UNRESOLVED');
  });

  it('a leg that is not a pass acts as in an A/B: named, no speed from it; a report-only sweep is VOID', () => {
    const j = judgeSweep(input(legs({ 1: 1, 2: 0.5, 4: 0.8 }, { index: 4, verdict: 'VOID' }), null));
    expect(j.verdict.word).toBe('VOID');
    expect(j.verdict.exitClass).toBe('void');
    expect(j.verdict.reasons.map(formatReason).join('\n')).toMatch(/LEG_NOT_PASSED: leg 5 \(THREADS=4 #2\): VOID/);
    const s = j.comparison.kind === 'ab' ? j.comparison.sweep! : null;
    expect(s!.arms.find((a) => a.arm === 'THREADS=4')).toMatchObject({ legs: 4, n: 3 });
    expect(judgeSweep(input(legs({ 1: 1, 2: 0.5, 4: 0.8 }, { index: 1, verdict: 'DIVERGENCE' }), gateSpec([faster(10)]))).verdict.word).toBe('DIVERGENCE');
  });

  it('missing legs are named: a sweep stopped early is not a quiet verdict', () => {
    const j = judgeSweep(input(legs({ 1: 1, 2: 0.5, 4: 0.8 }).slice(0, 7), gateSpec([faster(10)])));
    expect(j.verdict.reasons.map(formatReason).join('\n')).toMatch(/MISSING_LEGS: only 7 of 12 legs ran/);
  });
});

// The run a judged sweep makes (built inside each test, so a mutant of the judge is charged to the tests
// that read it: Stryker runs every test for code that runs at collection time).
function judgedRun(): { r: RunResult; s: SweepRecord | null; ls: LegRecord[] } {
  const ls = legs({ 1: 1, 2: 0.5, 4: 0.8 });
  const j = judgeSweep(input(ls, gateSpec([faster(10)])));
  const r = { command: 'ab', gate: { name: 'g' }, recipe: { name: 'r-sweep' }, golden: { name: 'g0' }, runDir: 'runs/x', argv: [], finishedAt: '2026-01-01T00:00:00Z', arch: 'cpu', silicon: null, status: 'complete', plan: { warmupLegs: 0 }, legs: ls, quantities: j.quantities, comparison: j.comparison, verdict: j.verdict } as unknown as RunResult;
  return { r, s: j.comparison.kind === 'ab' ? j.comparison.sweep! : null, ls };
}

describe('a sweep in the outputs', () => {

  it('the per-arm table: value, n, median s/token, tokens/s, ratio [interval], word; baseline first', () => {
    const { s } = judgedRun();
    const g = sweepGrid(s!);
    expect(g.head).toEqual(['THREADS', 'n', 'median s/token', 'tokens/s', 'ratio vs THREADS=1 [97.5%]', 'word']);
    expect(g.rows.map((x) => [x[0], x[1], x[4]!.split(' ')[0], x[5]])).toEqual([['1', '4', 'baseline', '—'], ['2', '4', '0.5000', 'SUPPORTED'], ['4', '4', '0.8000', 'SUPPORTED']]);
    expect(g.rows[1]![4]).toMatch(/^0\.5000 \[0\.49\d\d, 0\.50\d\d\]$/);
    expect(Number(g.rows[1]![3])).toBeCloseTo(2 / 1.003, 1);
  });

  it('the scaling plot: the baseline at 1, each arm its ratio and interval, by value', () => {
    const { s } = judgedRun();
    const pts = scalingPoints(s!);
    expect(pts.map((p) => [p.value, p.baseline, Number(p.ratio.toFixed(3))])).toEqual([['1', true, 1], ['2', false, 0.5], ['4', false, 0.8]]);
    expect(pts[1]!.lo).toBeLessThanOrEqual(0.5);
    const spec = scalingSpec(s!) as { title: { text: string }; data: Array<{ name: string; values?: unknown[] }> };
    expect(spec.title.text).toBe('THREADS sweep: per-token time ÷ THREADS=1');
    expect(spec.data.find((d) => d.name === 'bars')!.values).toHaveLength(2);
  });

  it('exports: one row per leg and one per arm, the arm rows with their ratio, interval and word', () => {
    const { r } = judgedRun();
    const rows = flatRows(r);
    expect(rows.filter((x) => x.row === 'leg')).toHaveLength(12);
    const arms = rows.filter((x) => x.row === 'arm');
    expect(arms.map((x) => [x.arm, x.word])).toEqual([['THREADS=1', 'baseline'], ['THREADS=2', 'SUPPORTED'], ['THREADS=4', 'SUPPORTED']]);
    expect(arms[1]!.ratio_vs_baseline).toBeCloseTo(0.5, 3);
    expect(arms[1]!.ratio_vs_baseline_lo).toBeLessThanOrEqual(arms[1]!.ratio_vs_baseline as number);
    expect(serializeCsv(r).split('\r\n')[0]).toMatch(/,ratio_vs_baseline,ratio_vs_baseline_lo,ratio_vs_baseline_hi,word$/);
    expect(serializeMarkdown(r)).toMatch(/\| THREADS \| n \| median s\/token \| tokens\/s \| ratio vs THREADS=1 \[97\.5%\] \| word \|/);
    expect(serializeMarkdown(r)).toMatch(/correction: decisions by Holm's step-down/);
    expect(armRows(legRows(r)).map((a) => a.arm)).toEqual(['THREADS=1', 'THREADS=2', 'THREADS=4']);
  });

  it('the ledger keeps each arm\'s figure with its interval, in a series of its own', () => {
    const { r, ls } = judgedRun();
    const e = ledgerEntry(r);
    expect(e.figures['perOutputTokenRatio@THREADS=2']).toMatchObject({ unit: 'x' });
    expect(e.figures['perOutputTokenRatio@THREADS=2']!.lo).toBeLessThanOrEqual(0.5);
    const key = seriesKeyOf(r);
    expect(key.arms).toEqual(['THREADS=1 T_THREADS=1', 'THREADS=2 T_THREADS=2', 'THREADS=4 T_THREADS=4']);
    const ab = seriesKeyOf({ ...r, legs: [{ ...ls[0]!, arm: 'A' }, { ...ls[1]!, arm: 'B' }] } as RunResult);
    expect(ab.arms).toEqual(['A T_THREADS=1', 'B T_THREADS=2']);
    expect(JSON.stringify(key)).not.toBe(JSON.stringify(ab));
  });
});

describe('the sweep record, in full', () => {
  it('design, correction, arms, spreads, the comparison\'s own fields and the notes; warm-ups left out', () => {
    const warm = planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4'], blocks: 2, mode: 'decode', warmupLegs: 2 });
    const ls = warm.plan.legs.map((p) => ({ ...leg(p.index, 'A', p.arm === 'THREADS=1' ? 1 : p.arm === 'THREADS=2' ? 0.5 : 0.8), arm: p.arm, label: p.label }));
    // A warm-up leg far off: were it counted, the baseline's spread and median would show it.
    ls[0] = { ...ls[0]!, quantities: { perOutputToken: { ...ls[0]!.quantities.perOutputToken!, value: 9 } as never } };
    const j = judgeSweep({ ...input(ls, null), design: warm, warmupLegs: 2, plannedJudgedLegs: 6 });
    const c = j.comparison.kind === 'ab' ? j.comparison : null;
    expect(c!.sweep!.design).toEqual({ kind: 'williams', blocks: 2, cycle: 6, order: [['THREADS=1', 'THREADS=2', 'THREADS=4'], ['THREADS=2', 'THREADS=4', 'THREADS=1']], text: expect.stringMatching(/^Williams design over 3 arms, 2 block\(s\): fewer than 3 blocks/) });
    expect(c!.sweep!).toMatchObject({ flag: 'THREADS', baseline: 'THREADS=1', values: ['1', '2', '4'] });
    expect(c!.sweep!.arms).toEqual([
      { arm: 'THREADS=1', value: '1', baseline: true, legs: 2, n: 2, medianPerTokenS: 1, tokensPerS: 1 },
      { arm: 'THREADS=2', value: '2', baseline: false, legs: 2, n: 2, medianPerTokenS: 0.5, tokensPerS: 2 },
      { arm: 'THREADS=4', value: '4', baseline: false, legs: 2, n: 2, medianPerTokenS: 0.8, tokensPerS: 1.25 },
    ]);
    expect(c!.spreads).toEqual({ 'arm THREADS=1 perOutputToken': 0, 'arm THREADS=2 perOutputToken': 0, 'arm THREADS=4 perOutputToken': 0 });
    expect(c!.arms).toEqual({ A: 'THREADS=1', B: 'each of 2 arm(s): THREADS=2, THREADS=4' });
    expect(c!).toMatchObject({ onArm: 'B', binaries: { kind: 'one' }, decidedAtBlock: null, legsUsed: 6, counterDiff: [], armsDiffered: null, outliers: [] });
    expect(c!.method).toEqual({ kind: 'bootstrap', text: expect.stringMatching(/^percentile bootstrap over legs per pair of arms; nothing decided/) });
    expect(c!.errorRates.assumes).toMatch(/; family-wise over the 2 arms by Holm's step-down$/);
    expect(c!.claim).toEqual({ source: 'none', statement: null, combine: 'all', refutationFails: true });
    expect(j.notes).toEqual([
      'warm-up: the first 2 leg(s) ran and were discarded (gate warmupLegs)', 'spreads beside the ratios (max−min)/min: arm THREADS=1 perOutputToken 0.0%, arm THREADS=2 perOutputToken 0.0%, arm THREADS=4 perOutputToken 0.0%',
      // the fixture's legs all count { calls: 1 } in one binary: each arm, as an A/B against the baseline, changed nothing seen
      'THREADS=2 against THREADS=1 (A = THREADS=1, B = THREADS=2): the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see',
      'THREADS=4 against THREADS=1 (A = THREADS=1, B = THREADS=4): the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see',
    ]);
    expect(c!.sweep!.comparisons.map((x) => [x.arm, x.armsDiffered, x.counterDiff])).toEqual([['THREADS=2', false, []], ['THREADS=4', false, []]]);
    expect(j.stop).toBe(false);
    const q = j.quantities['ratio@THREADS=2']!;
    expect(q.status === 'measured' && q.value).toBe(0.5);
    expect(c!.sweep!.comparisons[0]!.ratio.name).toBe('per output token ratio THREADS=2/THREADS=1');
    expect(c!.sweep!.comparisons[0]!.holm).toEqual([{ key: 'ratio', step: null, alpha: 0.025 }]);
  });

  it('counters per arm against the baseline, by field name; a leg far from its arm flagged by name; no counters said once', () => {
    // THREADS=4's legs count a second field: it took another path; THREADS=2's count as the baseline's
    const ls = legs({ 1: 1, 2: 0.5, 4: 0.8 }).map((l) => (l.arm === 'THREADS=4' ? { ...l, counters: { calls: 1, spins: 3 } } : l));
    // one THREADS=2 leg 4× its arm's time: flagged by median/MAD on the log scale, still counted
    const slow = ls.findIndex((l) => l.arm === 'THREADS=2');
    ls[slow] = { ...ls[slow]!, quantities: { perOutputToken: { ...ls[slow]!.quantities.perOutputToken!, value: 2 } as never } };
    const j = judgeSweep(input(ls, null));
    const c = j.comparison.kind === 'ab' ? j.comparison : null;
    expect(c!.sweep!.comparisons.map((x) => [x.arm, x.armsDiffered, x.counterDiff])).toEqual([
      ['THREADS=2', false, []],
      ['THREADS=4', true, [{ field: 'spins', A: 0, B: 3 }]],
    ]);
    expect(j.notes).toContain('THREADS=4 against THREADS=1 (A = THREADS=1, B = THREADS=4): counters that differ (mean per leg, by field name): spins A=0 B=3');
    expect(j.notes).toContain('THREADS=2 against THREADS=1 (A = THREADS=1, B = THREADS=2): the arms did NOT differ: identical counters and identical binary in both arms — whatever the ratio says, the flag changed nothing this run can see');
    expect(c!.outliers).toEqual([{ leg: slow + 1, arm: 'THREADS=2', value: 2, modifiedZ: expect.any(Number) }]);
    expect(j.notes.at(-1)).toMatch(new RegExp(`^outlier leg ${slow + 1} \\(arm THREADS=2\\): 2\\.00000, modified z [\\d.]+ by median/MAD — flagged, still counted$`));
    // an engine without counters: one line, not one per arm
    const bare = legs({ 1: 1, 2: 0.5, 4: 0.8 }).map((l) => ({ ...l, counters: {}, counterRecords: 0 }));
    const nb = judgeSweep(input(bare, null));
    expect(nb.notes.filter((n) => /counters|did NOT differ/.test(n))).toEqual(['the engine printed no counters: whether the arms took different paths is not shown']);
  });

  it('a gate judging another metric still shows per-token per arm, once', () => {
    const busy = { metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: 10 };
    const ls = legs({ 1: 1, 2: 0.5, 4: 0.8 }).map((l) => ({ ...l, quantities: { ...l.quantities, busy: { ...l.quantities.perOutputToken!, name: 'GPU busy', key: 'busyTimeWeighted', unit: '%', value: 40 } as never } }));
    const j = judgeSweep(input(ls, gateSpec([busy])));
    expect(Object.keys(j.quantities).sort()).toEqual(['busyFractionPoints@THREADS=2', 'busyFractionPoints@THREADS=4', 'perTokenRatio@THREADS=2', 'perTokenRatio@THREADS=4']);
  });
});

describe('the per-arm table of a sweep with a void arm, reported only', () => {
  it('n of legs, no median, the refusal by code, "reported"; the method lines', () => {
    const ls = legs({ 1: 1, 2: 0.5, 4: 0.8 }).map((l) => (l.arm === 'THREADS=4' ? { ...l, verdict: 'VOID' as const, quantities: {} } : l));
    const j = judgeSweep(input(ls, null));
    const s = j.comparison.kind === 'ab' ? j.comparison.sweep! : null;
    const g = sweepGrid(s!);
    expect(g.right).toEqual([false, true, true, true, false, false]);
    expect(g.rows[2]).toEqual(['4', '0 of 4', '—', '—', 'REFUSED (NO_SAMPLES)', 'reported']);
    expect(g.rows[1]![5]).toBe('reported');
    expect(g.rows[1]![2]).toBe('0.500000');
    expect(sweepMethodLines(s!)).toEqual([`design: ${s!.design.text}`, `correction: ${s!.correction.text}`]);
    const r = { comparison: j.comparison } as unknown as RunResult;
    expect(sweepOf(r)).toBe(s);
    expect(sweepOf({ comparison: null } as unknown as RunResult)).toBeNull();
  });
});

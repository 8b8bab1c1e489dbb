import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/results/ledgerRead.js';
import { historyReport } from '../../src/history/report.js';
import { seriesKeyOf, seriesLabel, type SeriesKey } from '../../src/results/seriesKey.js';
import { ledgerEntry, type LedgerEntry } from '../../src/results/ledger.js';
import type { LegRecord, RunResult } from '../../src/results/types.js';

// What makes figures comparable (issue 24): series are keyed by the gate, or by command + recipe + golden +
// arms + mode, besides metric and silicon.

function leg(index: number, arm: LegRecord['arm'], flagEnv: Record<string, string>, mode = 'decode'): LegRecord {
  return { index, arm, label: `${arm}${index}`, mode, flagEnv, binarySha256: 'b', process: { argv: ['node', 'driver.mjs', '--golden', 'g.json'] }, quantities: {} } as unknown as LegRecord;
}

function run(over: Partial<RunResult>): RunResult {
  return {
    schemaVersion: 1, command: 'a3', argv: ['a3'], runDir: 'runs/x', finishedAt: '2026-01-01T00:00:00.000Z', recipe: { name: 'nh-ref', path: null },
    golden: { name: 'nh-ref-tiny', revision: 'r', path: null }, gate: null, arch: 'cpu', silicon: null, legs: [leg(0, 'single', {})],
    quantities: {}, comparison: null, verdict: { word: 'STRICT PASS', exitClass: 'passed', reasons: [] }, ...over,
  } as unknown as RunResult;
}

const A3: SeriesKey = { gate: null, command: 'a3', recipe: 'nh-ref', golden: 'nh-ref-tiny', arms: ['single'], modes: ['decode'] };
const AB: SeriesKey = { gate: null, command: 'ab', recipe: 'nh-ref', golden: 'nh-ref-tiny', arms: ['A NH_REF_MAMBA_DECODE_STEP=0', 'B NH_REF_MAMBA_DECODE_STEP=1'], modes: ['decode'] };

describe('the series key of a run', () => {
  it('a3: one single arm, its golden and modes', () => {
    expect(seriesKeyOf(run({ legs: [leg(0, 'single', {}), leg(1, 'single', {}, 'fresh-prefill')] }))).toEqual({ ...A3, modes: ['decode', 'fresh-prefill'] });
  });

  it('a flag A/B: each arm by the environment it set, in the order the arms first ran; a swapped flag is another key', () => {
    const ab = run({ command: 'ab', legs: [leg(0, 'A', { NH_REF_MAMBA_DECODE_STEP: '0' }), leg(1, 'B', { NH_REF_MAMBA_DECODE_STEP: '1' }), leg(2, 'B', { NH_REF_MAMBA_DECODE_STEP: '1' })] });
    expect(seriesKeyOf(ab)).toEqual(AB);
    const swapped = run({ command: 'ab', legs: [leg(0, 'A', { NH_REF_MAMBA_DECODE_STEP: '1' }), leg(1, 'B', { NH_REF_MAMBA_DECODE_STEP: '0' })] });
    expect(seriesKeyOf(swapped).arms).toEqual(['A NH_REF_MAMBA_DECODE_STEP=1', 'B NH_REF_MAMBA_DECODE_STEP=0']);
    const twoVars = run({ command: 'ab', legs: [leg(0, 'A', { Z: '1', B_: '2' })] });
    expect(seriesKeyOf(twoVars).arms).toEqual(['A B_=2 Z=1']);
  });

  it('a cross-commit A/B names its arms by commit; a recipe-less busy by what it ran; a gate by name', () => {
    const cross = run({ command: 'ab', comparison: { kind: 'ab', binaries: { kind: 'two' } } as unknown as RunResult['comparison'], legs: [leg(0, 'A', {}), leg(1, 'B', {})] });
    expect(seriesKeyOf(cross).arms).toEqual(['A base commit, (recipe defaults)', 'B head commit, (recipe defaults)']);
    const busy = seriesKeyOf(run({ command: 'busy', recipe: null, golden: null }));
    expect(busy).toMatchObject({ command: 'busy', recipe: null, target: 'node driver.mjs --golden g.json' });
    expect(seriesLabel(busy)).toBe('busy node driver.mjs --golden g.json, arms single, mode decode');
    const gated = run({ gate: { name: 'g1', path: 'p', sha256: 's', hypothesis: null } });
    expect(seriesLabel(seriesKeyOf(gated))).toBe('gate g1: a3 nh-ref, golden nh-ref-tiny, arms single, mode decode');
    expect(seriesKeyOf(run({})).target).toBeUndefined();
    // busy -- CMD records no legs: the command after `--` is what ran
    expect(seriesKeyOf(run({ command: 'busy', recipe: null, legs: [], argv: ['busy', '--results-dir', 'r', '--', './engine', '--x'] })).target).toBe('./engine --x');
  });

  it('is written into the ledger line', () => {
    expect(ledgerEntry(run({})).series).toEqual(A3);
  });
});

// A ledger line as nh-gate writes it; `series: undefined` is a line written before series keys.
function line(at: number, series: SeriesKey | undefined, figures: LedgerEntry['figures'], gate: string | null = null): string {
  const e = { schemaVersion: 1, at: new Date(Date.UTC(2026, 0, 1, 0, at)).toISOString(), command: series?.command ?? 'ab', gate, gateSha256: null, recipe: 'nh-ref', arch: 'cpu', siliconKey: 'cpu:X', binarySha256: [], verdict: 'STRICT PASS', figures, runDir: `runs/${at}`, ...(series ? { series } : {}) };
  return JSON.stringify(e);
}

// The new user's sequence at a scale where mixing shows: eight a3 runs near 1 ms a token, then three gate-less
// A/Bs whose arm-A first leg runs 2.5 ms a token (the flag's slow arm).
function newUser(keyed: boolean): string {
  const a3 = [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97].map((v, i) => line(i, keyed ? A3 : { ...A3, gate: null }, { 'leg1.perOutputToken': { value: v * 1e-3, unit: 's' } }));
  const ab = [2.5, 2.55, 2.45].map((v, i) => line(10 + i, AB, { ratio: { value: 0.4, unit: 'x', lo: 0.38, hi: 0.42 }, 'leg1.perOutputToken': { value: v * 1e-3, unit: 's' } }));
  const text = [...a3, ...ab].join('\n') + '\n';
  return keyed ? text : text.replace(/,"series":\{[^}]*\}/g, '');
}

describe('history keeps runs apart', () => {
  it('the new user\'s a3 runs and A/Bs are two series, and neither is a regression', () => {
    const { report } = historyReport(parseLedger(newUser(true)), { metric: 'leg1.perOutputToken' }, 'lower');
    expect(report.series.map((s) => [s.label, s.points])).toEqual([
      ['a3 nh-ref, golden nh-ref-tiny, arms single, mode decode', 8],
      ['ab nh-ref, golden nh-ref-tiny, arms A NH_REF_MAMBA_DECODE_STEP=0 | B NH_REF_MAMBA_DECODE_STEP=1, mode decode', 3],
    ]);
    expect(report.verdict.word).toBe('NO REGRESSION');
    // The same points in one series are the reported +150% "regression": the key is what prevents it.
    const one = newUser(true).replace(/"series":\{[^}]*\}/g, `"series":${JSON.stringify(A3)}`);
    expect(historyReport(parseLedger(one), { metric: 'leg1.perOutputToken' }, 'lower').report.verdict.word).toBe('REGRESSION');
  });

  it('by default shows a single-arm run\'s own figures and an A/B\'s run-level ones', () => {
    const { report } = historyReport(parseLedger(newUser(true)), {}, 'lower');
    expect(report.series.map((s) => `${s.key?.command} ${s.metric}`)).toEqual(['a3 leg1.perOutputToken', 'ab ratio']);
  });

  it('gate-less lines written before series keys are listed, never fitted; alone they are NOT MEASURED', () => {
    const { report } = historyReport(parseLedger(newUser(false)), { metric: 'leg1.perOutputToken' }, 'lower');
    expect(report.series).toEqual([]);
    expect(report.unkeyed.lines).toBe(11);
    expect(report.unkeyed.groups.map((g) => [g.command, g.lines])).toEqual([['a3', 8], ['ab', 3]]);
    expect(report.verdict).toMatchObject({ word: 'NOT MEASURED', exitClass: 'void' });
    expect(report.verdict.reasons[0]!.code).toBe('UNKEYED');
    expect(report.verdict.reasons[0]!.message).toMatch(/^11 gate-less line\(s\) written before series keys \(8 a3 nh-ref on cpu:X, 3 ab nh-ref on cpu:X\): not fitted/);
    // beside keyed lines they are named and the keyed series are judged
    const both = parseLedger(newUser(false) + line(30, A3, { 'leg1.perOutputToken': { value: 1e-3, unit: 's' } }) + '\n');
    const r2 = historyReport(both, { metric: 'leg1.perOutputToken' }, 'lower').report;
    expect(r2.series.map((s) => s.points)).toEqual([1]);
    expect(r2.unkeyed.lines).toBe(11);
    expect(r2.verdict.word).toBe('NO REGRESSION');
  });

  it('a gated line written before series keys is keyed by gate, command and recipe, apart from keyed lines', () => {
    const old = [1, 2, 3].map((i) => line(i, undefined, { ratio: { value: 1, unit: 'x' } }, 'g')).join('\n');
    const now = line(9, { ...AB, gate: 'g' }, { ratio: { value: 1, unit: 'x' } }, 'g');
    const { report } = historyReport(parseLedger(`${old}\n${now}\n`), {}, 'lower');
    expect(report.series.map((s) => [s.label, s.points, s.key === null])).toEqual([
      ['gate g: ab nh-ref (written before series keys: golden, arms and mode not recorded)', 3, true],
      ['gate g: ab nh-ref, golden nh-ref-tiny, arms A NH_REF_MAMBA_DECODE_STEP=0 | B NH_REF_MAMBA_DECODE_STEP=1, mode decode', 1, false],
    ]);
  });

  it('a damaged series key makes the line unreadable (named), never guessed at', () => {
    const bad = line(1, { ...A3, arms: 'single' as unknown as string[] }, { 'leg1.perOutputToken': { value: 1, unit: 's' } });
    const r = parseLedger(`${bad}\n`);
    expect(r.entries).toEqual([]);
    expect(r.skipped.map((s) => s.reason)).toEqual(['not-an-entry']);
  });
});

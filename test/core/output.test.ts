import { reason } from '../../src/verdict/reasons.js';
import { describe, expect, it } from 'vitest';
import { measured, refused, withheld } from '../../src/quantity/make.js';
import { perOutputToken } from '../../src/quantity/perToken.js';
import { RESULT_SCHEMA_VERSION, type LegRecord, type RunResult } from '../../src/results/types.js';
import { armRows, legRow, legRows, legWitness, measuredFigures, unmeasuredFigures } from '../../src/report/rows.js';
import { alignedLines, armGrid, legGrid, markdownLines } from '../../src/report/tables.js';
import { compactRunLines, legCompactLines, tailLines } from '../../src/report/compact.js';
import { allOf, textReport } from '../../src/report/live.js';
import { serializeCsv, serializeJson, serializeJsonl, serializeMarkdown, COLUMNS } from '../../src/report/exports.js';
import { renderSummaryMd } from '../../src/report/summary.js';
import { renderHtml } from '../../src/report/html.js';
import { leg } from '../gates/fixtures.js';
import type { Silicon } from '../../src/silicon/types.js';

const H200: Silicon = {
  kind: 'gpu', gpuName: 'NVIDIA H200', uuid: 'GPU-fake', computeCapability: '9.0', smArch: 'sm_90', archTarget: '90a',
  driverVersion: 'x', cudaDriverVersion: 'x', maxSmClockMHz: 1980, cpuModel: 'test CPU', source: 'claimed',
};

// A GPU leg as judge.ts leaves it: per-token with its terms, busy, SM activity and the SM clocks.
function gpuLeg(index: number, arm: 'A' | 'B', windowS: number, busyPct: number, over: Partial<LegRecord> = {}): LegRecord {
  const l = leg(index, arm, null);
  const clocks = { samples: { value: 30, unit: 'samples', label: 'clock samples in the window' } };
  return {
    ...l,
    label: `${arm}${index} DEVICE_MAMBA=${arm === 'A' ? 'off' : 'on'}`,
    process: { ...l.process, startS: 10 * index, endS: 10 * index + windowS + 2 },
    decodeWindow: { startS: 10 * index + 1, endS: 10 * index + 1 + windowS, source: 'harness' },
    tokens: { source: 'events', mode: 'decode', prompts: [], compared: 96, matched: 96, fullRows: 3, shortRows: 0, word: 'STRICT PASS', reasons: [], witness: 'harness' },
    quantities: {
      perOutputToken: perOutputToken({ decodeWindowS: windowS, tokensCompared: 96, loadS: 250, silicon: H200 }),
      busy: measured('GPU busy (time-weighted)', 'busyTimeWeighted', busyPct, '%', { samples: { value: 31, unit: 'samples' } }),
      busyShare: measured('GPU busy (nonzero-sample share)', 'busyNonzeroShare', 100, '%', {}),
      smUtil: measured('SM activity (GPM SM_UTIL)', 'gpmActivity', busyPct / 4, '%', { intervals: { value: 60, unit: 'intervals' } }),
      smOccupancy: measured('SM occupancy (GPM SM_OCCUPANCY)', 'gpmActivity', 3, '%', {}),
      smClockMin: measured('SM clock (min)', 'smClock', 1755, 'MHz', clocks),
      smClockMedian: measured('SM clock (median)', 'smClock', 1980, 'MHz', clocks),
    },
    clocks: { throttled: false, throttleReasons: [], reasons: {}, samples: 30, line: 'SM clock min 1755 MHz, median 1980 MHz over 30 clock sample(s); clock-event reasons none' },
    ...over,
  };
}

function run(legs: LegRecord[], over: Partial<RunResult> = {}): RunResult {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'ab', argv: [], runDir: '/tmp/run-x',
    startedAt: '2026-12-01T00:00:00.000Z', finishedAt: '2026-12-01T00:01:00.000Z', status: 'complete', recipe: { name: 'nh-ref', path: null },
    golden: { name: 'nh-ref-tiny', revision: 'abc', path: null }, gate: { name: 'dev-ab', path: 'g.json', sha256: 'b'.repeat(64), hypothesis: null },
    arch: '90', silicon: H200, build: null, plan: { text: 'A/B of DEVICE_MAMBA: 4 legs\n  leg 1: A1', order: 'abba', seed: null, legs: legs.length, warmupLegs: 0 },
    legs, quantities: { ratio: measured('per output token ratio B/A', 'ratio', 0.5, 'x', { numerator: { value: 1, unit: 's' }, denominator: { value: 2, unit: 's' } }) },
    comparison: null, verdict: { word: 'SUPPORTED', exitClass: 'passed', reasons: [reason('CRITERION', 'ratio 0.500x')] }, notes: ['hypothesis: on-lower by 3%'],
    ...over,
  };
}

const fourLegs = (): LegRecord[] => [gpuLeg(0, 'A', 13.8, 40), gpuLeg(1, 'B', 6.9, 80), gpuLeg(2, 'B', 7.2, 82), gpuLeg(3, 'A', 14.1, 41)];

describe('rows: one per leg and per arm, from the result record alone', () => {
  it('a leg row carries tokens/s derived from the same terms as s/token, and the leg time', () => {
    const x = legRow(gpuLeg(0, 'A', 13.8, 40));
    expect(x.figures.perToken).toMatchObject({ status: 'measured', value: 13.8 / 96 });
    expect(x.figures.tokensPerS).toMatchObject({ status: 'measured', unit: 'tokens/s', value: 96 / 13.8, terms: { tokensCompared: { value: 96 }, decodeWindowS: { value: 13.8 } } });
    expect(x.durationS).toBeCloseTo(15.8, 9);
    expect(x.decodeWindowS).toBeCloseTo(13.8, 9);
    expect(x.figures.smClock).toMatchObject({ value: 1980 });
  });

  it('a refused s/token refuses tokens/s by the same code; a leg without events is the engine\'s claim', () => {
    const wrong = { ...gpuLeg(0, 'A', 10, 40), quantities: { perOutputToken: perOutputToken({ decodeWindowS: 10, tokensCompared: 96, tokensMatched: 90 }) } };
    expect(legRow(wrong).figures.tokensPerS).toMatchObject({ status: 'refused', reason: 'WRONG_TOKENS' });
    const claim = gpuLeg(0, 'A', 10, 40);
    claim.tokens = { ...claim.tokens!, source: 'engine claim' };
    expect(legWitness(claim)).toBe('engine');
    expect(legWitness(gpuLeg(0, 'A', 10, 40))).toBe('harness');
    expect(legWitness({ ...gpuLeg(0, 'A', 10, 40), witness: 'engine' } as LegRecord)).toBe('engine');
    expect(legWitness({ ...gpuLeg(0, 'A', 10, 40), witness: 'harness' } as LegRecord)).toBe('harness');
  });

  it('arm rows summarize each figure over the arm\'s measured legs; warm-up legs are not counted', () => {
    const arms = armRows(legRows(run(fourLegs())));
    expect(arms.map((a) => a.arm)).toEqual(['A', 'B']);
    expect(arms[0]!.stats.perToken).toMatchObject({ n: 2, min: 13.8 / 96, max: 14.1 / 96 });
    expect(arms[1]!.stats.busy!.mean).toBeCloseTo(81, 9);
    const warm = armRows(legRows(run(fourLegs(), { plan: { text: 'x', order: 'abba', seed: null, legs: 4, warmupLegs: 1 } })));
    expect(warm[0]!.legs).toBe(1);
    expect(warm[0]!.stats.perToken!.n).toBe(1);
  });
});

describe('rows at the edges', () => {
  it('an arm with no leg that passed has no figures (0 of n), and a result without a plan counts no warm-up', () => {
    const legs = [leg(0, 'A', 0.002), { ...leg(1, 'B', 0.001), verdict: 'DIVERGENCE' as const }];
    const rows = legRows(run(legs, { plan: null }));
    expect(rows.map((x) => x.warmup)).toEqual([false, false]);
    const arms = armRows(rows);
    expect(arms[1]).toMatchObject({ arm: 'B', legs: 1, stats: { perToken: null } });
    expect(armGrid(arms, ['perToken']).rows[1]).toEqual(['s/token', 'B', '0 of 1', '—', '—', '—']);
    expect(armRows(legRows(run([{ ...leg(0, 'A', 0.002), arm: 'single' }])))).toEqual([]);
  });

  it('a figure every leg lacks is neither a column nor a "not measured" line', () => {
    const real = { ...leg(0, 'A', null), quantities: { perOutputToken: perOutputToken({ decodeWindowS: 1, tokensCompared: 10 }) } };
    expect(unmeasuredFigures(legRows(run([real])))).toEqual([]);
    expect(unmeasuredFigures(legRows(run([gpuLeg(0, 'A', 10, 40)])))).toEqual([]);
    const w = { ...real, quantities: { ...real.quantities, busy: withheld('GPU busy', 'CROSS_SILICON', 'elsewhere') } };
    expect(unmeasuredFigures(legRows(run([w])))).toEqual([{ key: 'busy', why: 'CROSS_SILICON: elsewhere' }]);
  });
});

describe('listeners', () => {
  it('allOf tells every listener, in order, and skips the absent ones', () => {
    const seen: string[] = [];
    const r = run([]);
    allOf([{ saved: () => seen.push('a') }, null, { saved: (x) => seen.push(`b ${x.runDir}`) }]).saved(r);
    expect(seen).toEqual(['a', 'b /tmp/run-x']);
  });

  it('a save after the run has ended prints only legs not yet printed, and nothing when there are none', () => {
    const out: string[] = [];
    const t = textReport((s) => out.push(s), { verbose: false });
    const r = run(fourLegs().slice(0, 2));
    t.saved(r);
    expect(out.join('').match(/^leg \d/gm)).toHaveLength(2);
    t.saved(r);
    expect(out).toHaveLength(2);
    t.saved({ ...r, legs: [] });
    expect(out).toHaveLength(2);
    t.saved({ ...r, legs: fourLegs().slice(0, 3) });
    expect(out.at(-1)).toMatch(/^leg 3\/2 \[B2 DEVICE_MAMBA=on\]/);
    expect(out).toHaveLength(3);
  });
});

describe('the compact text: one line per leg, a leg table, an arm table', () => {
  it('a GPU leg is one line (SM clock once) where the full block is a dozen', async () => {
    const { legLines } = await import('../../src/report/text.js');
    const l = gpuLeg(0, 'A', 13.8, 40);
    const r = run([l]);
    const full = legLines(l);
    expect(full.length).toBeGreaterThanOrEqual(8);
    const lines = legCompactLines(l, r);
    expect(lines).toEqual(['leg 1/1 [A0 DEVICE_MAMBA=off]: STRICT PASS — 96/96 tokens, 0.143750 s/token, 6.96 tokens/s, busy 40.00%, SM activity 10.00%, SM clock 1980 MHz, 15.80 s']);
    expect(lines.join('\n').match(/SM clock/g)).toHaveLength(1);
  });

  it('a void leg says why and where its log is; a throttled leg shows its clocks', () => {
    const v = { ...leg(2, 'B', null, { verdict: 'VOID' }), voidReasons: [{ code: 'TIMEOUT' as const, message: 'the driver ran past its limit' }], logFile: 'legs/leg-03-B.log' };
    const lines = legCompactLines(v, run([v]));
    expect(lines[0]).toMatch(/^leg 3\/1 \[B2\]: VOID — tokens not judged, 1\.00 s$/);
    expect(lines.slice(1)).toEqual(['  void: TIMEOUT: the driver ran past its limit', '  log: legs/leg-03-B.log']);
    const hot = gpuLeg(0, 'A', 10, 40, { clocks: { throttled: true, throttleReasons: ['HwSlowdown'], reasons: { HwSlowdown: 3 }, samples: 30, line: 'SM clock min 900 MHz — THROTTLED (HwSlowdown)' } });
    expect(legCompactLines(hot, run([hot]))).toContain('  SM clock min 900 MHz — THROTTLED (HwSlowdown)');
  });

  it('the leg table shows only figures some leg measured, and refusals by code', () => {
    const cpu = [leg(0, 'A', 0.002), { ...leg(1, 'B', null, { verdict: 'DIVERGENCE' }), quantities: { perOutputToken: refused('per output token', 'WRONG_TOKENS', 'x') } }];
    const g = legGrid(legRows(run(cpu)));
    expect(g.head).toEqual(['leg', 'arm', 'tokens', 's/token', 'time [s]', 'verdict']);
    expect(g.rows[1]).toEqual(['2', 'B', '—', 'REFUSED (WRONG_TOKENS)', '1.00', 'DIVERGENCE']);
    const gpu = legGrid(legRows(run(fourLegs())));
    expect(gpu.head).toEqual(['leg', 'arm', 'tokens', 's/token', 'tokens/s', 'busy [%]', 'SM activity [%]', 'SM clock [MHz]', 'time [s]', 'verdict']);
    const text = alignedLines(gpu);
    expect(text).toHaveLength(5);
    expect(text[0]).toBe('leg  arm  tokens   s/token  tokens/s  busy [%]  SM activity [%]  SM clock [MHz]  time [s]  verdict');
    expect(text[1]).toBe('  1  A     96/96  0.143750      6.96     40.00            10.00            1980     15.80  STRICT PASS');
  });

  it('the arm table: n, mean ± σ, median, min – max per figure, arms side by side', () => {
    const rows = legRows(run(fourLegs()));
    const g = armGrid(armRows(rows), measuredFigures(rows));
    expect(g.head).toEqual(['figure', 'arm', 'n', 'mean ± σ', 'median', 'min – max']);
    expect(g.rows[0]).toEqual(['s/token', 'A', '2', '0.145313 ± 0.002210', '0.145313', '0.143750 – 0.146875']);
    expect(g.rows[1]![1]).toBe('B');
    expect(g.rows.map((x) => x[0])).toEqual(['s/token', 's/token', 'tokens/s', 'tokens/s', 'busy [%]', 'busy [%]', 'SM activity [%]', 'SM activity [%]', 'SM clock [MHz]', 'SM clock [MHz]']);
    const one = armGrid(armRows(legRows(run([gpuLeg(0, 'A', 13.8, 40)]))), ['perToken']);
    expect(one.rows[0]![3]).toBe('0.143750 (n=1, no σ)');
  });

  it('the tail: tables, then the run figures, notes, the verdict line and the files', () => {
    const tail = tailLines(run(fourLegs()));
    const verdictAt = tail.indexOf('SUPPORTED — CRITERION: ratio 0.500x');
    expect(verdictAt).toBeGreaterThan(10);
    expect(tail.slice(verdictAt + 1)).toEqual(['run directory: /tmp/run-x', 'report: /tmp/run-x/report.html']);
    expect(tail).toContain('per output token ratio B/A 0.500x (1.000000 s / 2.000000 s)');
    const only = tailLines(run([leg(0, 'A', 0.002)]));
    expect(only.some((l) => l.startsWith('leg '))).toBe(false);
  });

  it('a figure no leg measured is named with its refusal, not dropped silently', () => {
    const l = { ...leg(0, 'A', 0.002), quantities: { perOutputToken: measured('per output token', 'perOutputToken', 0.002, 's', {}), smUtil: refused('SM activity (GPM SM_UTIL)', 'GPM_UNSUPPORTED', 'GPM needs Hopper') } };
    expect(tailLines(run([l, l]))).toContain('SM activity: not measured in any leg — GPM_UNSUPPORTED: GPM needs Hopper');
  });
});

describe('text as legs end', () => {
  it('prints the header once the build is saved, each leg once as it is saved, the rest at the end', () => {
    const out: string[] = [];
    const t = textReport((s) => out.push(s), { verbose: false });
    const legs = fourLegs();
    const r = run([], { status: 'running', plan: { text: 'A/B of DEVICE_MAMBA: 4 legs\n  leg 1: A1', order: 'abba', seed: null, legs: 4 } });
    t.saved(r);
    expect(out.join('')).toMatch(/^nh-gate ab — gate dev-ab .*\nsilicon: NVIDIA H200 .*\nA\/B of DEVICE_MAMBA: 4 legs\n$/);
    r.legs = legs.slice(0, 1);
    t.saved(r);
    t.saved(r);
    expect(out).toHaveLength(2);
    expect(out[1]).toMatch(/^leg 1\/4 \[A0 DEVICE_MAMBA=off\]: STRICT PASS/);
    r.legs = legs;
    r.status = 'complete';
    t.saved(r);
    t.end(r);
    const all = out.join('');
    expect(all.match(/^leg \d\/\d \[/gm)).toHaveLength(4);
    expect(all.trimEnd().split('\n').at(-3)).toBe('SUPPORTED — CRITERION: ratio 0.500x');
  });

  it('--verbose prints each leg\'s full block; a run that never saved prints everything at the end', () => {
    const out: string[] = [];
    const t = textReport((s) => out.push(s), { verbose: true });
    const r = run(fourLegs());
    t.end(r);
    const all = out.join('');
    expect(all).toContain('  leg 1: A1');
    expect(all).toMatch(/SM clock min 1755 MHz, median 1980 MHz over 30 clock sample/);
    expect(all).toContain('SM clock (median) 1980 MHz');
    expect(all).toContain('  per output token 0.143750 s (decode window 13.800 s / 96 tokens compared; engine load 250.0 s excluded)\n  tokens per second 6.96 tokens/s (96 tokens compared / decode window 13.800 s)\n');
    expect(compactRunLines(r).join('\n')).not.toContain('SM clock (median)');
  });
});

describe('exports: pure serializers over the same rows', () => {
  it('CSV: units in the column names, one row per leg and per arm, full precision, refusals by code', () => {
    const legs = fourLegs();
    legs[3] = { ...legs[3]!, quantities: { ...legs[3]!.quantities, busy: refused('GPU busy', 'NO_SAMPLES', 'none') } };
    const lines = serializeCsv(run(legs)).split('\r\n');
    const head = lines[0]!.split(',');
    expect(head.slice(0, 4)).toEqual(['row', 'leg', 'arm', 'label']);
    for (const k of ['duration_s', 'decode_window_s', 's_per_token', 's_per_token_stdev', 'tokens_per_s', 'busy_pct', 'sm_activity_pct', 'sm_clock_mhz']) expect(head).toContain(k);
    expect(lines).toHaveLength(1 + 4 + 2 + 1);
    const col = (line: string, k: string): string => line.split(',')[head.indexOf(k)]!;
    expect(col(lines[1]!, 's_per_token')).toBe(String(13.8 / 96));
    expect(col(lines[4]!, 'busy_pct')).toBe('');
    expect(col(lines[4]!, 'refused')).toBe('busy_pct=NO_SAMPLES');
    expect(col(lines[5]!, 'row')).toBe('arm');
    expect(col(lines[5]!, 'busy_pct_n')).toBe('1');
    expect(col(lines[6]!, 's_per_token_n')).toBe('2');
  });

  it('CSV quotes a label with a comma or a quote (RFC 4180)', () => {
    const l = { ...leg(0, 'A', 0.002), label: 'A1 X="1,2"' };
    expect(serializeCsv(run([l]))).toContain(',"A1 X=""1,2""",');
  });

  it('JSON: columns with units, leg rows and arm rows; JSON Lines: one object per row, each naming its run', () => {
    const doc = JSON.parse(serializeJson(run(fourLegs())));
    expect(doc).toMatchObject({ schemaVersion: 1, command: 'ab', gate: 'dev-ab', verdict: { word: 'SUPPORTED' } });
    expect(doc.columns).toHaveLength(COLUMNS.length);
    expect(doc.columns.find((c: { key: string }) => c.key === 'tokens_per_s')).toMatchObject({ unit: 'tokens/s' });
    expect(doc.legs).toHaveLength(4);
    expect(doc.arms).toHaveLength(2);
    expect(doc.arms[1]).toMatchObject({ row: 'arm', arm: 'B', legs: 2, s_per_token_n: 2 });
    const lines = serializeJsonl(run(fourLegs())).trimEnd().split('\n').map((x) => JSON.parse(x));
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatchObject({ row: 'leg', leg: 1, run_dir: '/tmp/run-x', command: 'ab' });
    expect(serializeJsonl(run([]))).toBe('');
  });

  it('markdown: the verdict and both tables, units in the headers', () => {
    const md = serializeMarkdown(run(fourLegs()));
    expect(md.split('\n')[0]).toBe('## nh-gate ab dev-ab: SUPPORTED');
    expect(md).toContain('| leg | arm | tokens | s/token | tokens/s | busy [%] | SM activity [%] | SM clock [MHz] | time [s] | verdict |');
    expect(md).toContain('|---:|---|---:|---:|---:|---:|---:|---:|---:|---|');
    expect(md).toContain('| s/token | A | 2 | 0.145313 ± 0.002210 | 0.145313 | 0.143750 – 0.146875 |');
    expect(markdownLines({ head: ['a|b'], right: [false], rows: [['x|y']] })[2]).toBe('| x\\|y |');
  });
});

describe('summary.md and report.html', () => {
  it('summary.md has a time column, the figures of every leg and the arm table', () => {
    const md = renderSummaryMd(run(fourLegs()), []);
    expect(md).toContain('| leg | arm | tokens | s/token | tokens/s | busy [%] | SM activity [%] | SM clock [MHz] | time [s] | verdict | end | binary |');
    expect(md).toMatch(/\| 1 \| A \| 96\/96 \| 0\.143750 .* \| 15\.80 \| STRICT PASS \| exit 0 \| `sha-1` \|/);
    expect(md).toContain('### Arms');
    expect(md).toContain('SM clock (min) 1755 MHz');
  });

  it('report.html: the verdict first, figures with their terms on hover, each leg\'s block in a details row, plots inline', () => {
    const html = renderHtml(run(fourLegs()), [{ file: 'ab-per-token.svg', svg: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>' }]);
    expect(html).toMatch(/<div id="verdict" class="verdict passed">SUPPORTED<\/div>/);
    expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('id="legs"'));
    expect(html).toContain('title="per output token 0.143750 s (decode window 13.800 s / 96 tokens compared; engine load 250.0 s excluded)"');
    expect(html).toContain('title="tokens per second 6.96 tokens/s (96 tokens compared / decode window 13.800 s)"');
    expect(html.match(/<tr class="details">/g)).toHaveLength(4);
    expect(html).toContain('<figure class="plot" id="ab-per-token.svg"><svg');
    expect(html).not.toMatch(/<script|<link|src="http/);
    const evil = renderHtml(run([{ ...leg(0, 'A', 0.002), label: '<img src=x onerror=alert(1)>' }]), []);
    expect(evil).not.toContain('<img');
    expect(evil).toContain('&lt;img src=x');
    const failed = renderHtml(run([], { verdict: { word: 'VOID', exitClass: 'void', reasons: [reason('BUILD_FAILED', 'x')] }, status: 'interrupted' }), []);
    expect(failed).toContain('class="verdict void">VOID (interrupted)</div>');
  });
});

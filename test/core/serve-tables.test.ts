import { describe, expect, it } from 'vitest';
import { armRows, figuresOf, legRow, legRows, legWitness, orderArms, runSet, unmeasuredFigures } from '../../src/report/rows.js';
import { armGrid, legGrid, unmeasuredLines } from '../../src/report/tables.js';
import { COLUMN_SETS, flatRows, serializeCsv, serializeJson } from '../../src/report/exports.js';
import { legOneLine, tailLines } from '../../src/report/compact.js';
import { renderHtml } from '../../src/report/html.js';
import { renderSummaryMd } from '../../src/report/summary.js';
import { serveAbRun, serveLeg, serverFailedLeg } from './serveRun.js';
import { leg } from '../gates/fixtures.js';
import { measured } from '../../src/quantity/make.js';
import type { RunResult } from '../../src/results/types.js';

// A serve A/B (each leg one load against a server) shows the load's figures where users look: the leg line,
// the leg and arm tables of the text output, summary.md and report.html, and the four exports with their own
// column set. A figure a leg refused shows its code, never a 0; a figure no leg measured is named, not dropped.

const SERVE_TITLES = ['TTFT p50 [s]', 'TTFT p99 [s]', 'TPOT p50 [s]', 'ITL p50 [s]', 'E2E p50 [s]', 'output tokens/s', 'requests/s', 'goodput [requests/s]'];

describe('serve legs in the tables', () => {
  it('each leg: tokens, requests finished of sent, the load\'s figures with units in the header', () => {
    const rows = legRows(serveAbRun());
    expect(rows.map((x) => x.set)).toEqual(Array(6).fill('serve'));
    expect(rows.map((x) => x.requests)).toEqual([4, 4, 4, 3, 4, 4].map((ok) => ({ ok, total: 4 })));
    const g = legGrid(rows);
    expect(g.head).toEqual(['leg', 'arm', 'tokens', 'requests ok/total', ...SERVE_TITLES, 'time [s]', 'verdict']);
    const tpot = rows[0]!.figures.tpotP50!;
    expect(tpot).toMatchObject({ status: 'measured', unit: 's' });
    expect(g.rows[0]![6]).toBe((tpot as { value: number }).value.toFixed(6));
    expect(g.rows[2]!.slice(4, 12)).toEqual(Array(8).fill('REFUSED (WRONG_TOKENS)'));
    expect(g.rows[3]![3]).toBe('3/4');
    // No driver figure is invented for a load.
    expect(rows.every((x) => x.figures.perToken === null && x.figures.busy === null)).toBe(true);
  });

  it('the leg line names the requests and every figure with its unit', () => {
    const [first, , wrong] = legRows(serveAbRun());
    expect(legOneLine(first!, 6)).toMatch(/^leg 1\/6 \[A0 THREADS=1\]: STRICT PASS — 12\/12 tokens, 4\/4 requests finished, TTFT p50 0\.100000 s, TTFT p99 0\.100000 s, TPOT p50 0\.100000 s, ITL p50 0\.100000 s, E2E p50 0\.400000 s, 3\.53 output tokens\/s, 1\.17647 requests\/s, goodput 1\.17647 requests\/s, \d+\.\d\d s$/);
    expect(legOneLine(wrong!, 6)).toContain('TPOT p50 REFUSED (WRONG_TOKENS)');
  });

  it('each arm: requests summed over its legs, then every figure over the legs that passed', () => {
    const rows = legRows(serveAbRun());
    const arms = armRows(rows);
    expect(arms.map((a) => [a.arm, a.legs, a.requests])).toEqual([['A', 3, { ok: 11, total: 12 }], ['B', 3, { ok: 12, total: 12 }]]);
    expect(arms[0]!.stats.tpotP50).toMatchObject({ n: 2, min: expect.closeTo(0.1, 9), max: expect.closeTo(0.102, 9) });
    const g = armGrid(arms, figuresOf('serve'));
    expect(g.rows.slice(0, 2)).toEqual([['requests ok/total', 'A', '3', '11/12 (sum over legs)', '—', '—'], ['requests ok/total', 'B', '3', '12/12 (sum over legs)', '—', '—']]);
    expect(g.rows.find((x) => x[0] === 'TPOT p50 [s]' && x[1] === 'B')).toEqual(['TPOT p50 [s]', 'B', '2 of 3', '0.111000 ± 0.001414', '0.111000', '0.110000 – 0.112000']);
    const text = tailLines(serveAbRun()).join('\n');
    expect(text).toMatch(/^requests ok\/total +A +3 +11\/12 \(sum over legs\)/m);
    expect(text).toMatch(/^goodput \[requests\/s\] +B +2 of 3 +1\.05997 ± 0\.0135047/m);
  });

  it('without an SLO, goodput is refused MISSING_TERM in every leg, named under the tables and empty (never 0) in the exports', () => {
    const r = serveAbRun(null);
    const rows = legRows(r);
    expect(legGrid(rows).head).not.toContain('goodput [requests/s]');
    expect(legOneLine(rows[0]!, 6)).toContain('goodput REFUSED (MISSING_TERM)');
    expect(unmeasuredLines(rows)).toEqual([expect.stringMatching(/^goodput: not measured in any leg — MISSING_TERM: no SLO was given/)]);
    const leg1 = flatRows(r)[0]!;
    expect(leg1.goodput_requests_per_s).toBeNull();
    expect(leg1.refused).toBe('goodput_requests_per_s=MISSING_TERM');
    const arm = flatRows(r).find((x) => x.row === 'arm')!;
    expect([arm.goodput_requests_per_s, arm.goodput_requests_per_s_n]).toEqual([null, 0]);
  });
});

describe('serve exports: their own column set, the decode set unchanged', () => {
  it('CSV and JSON carry requests, the load window and the load figures, each unit in the column name', () => {
    const r = serveAbRun();
    const [head, leg1] = serializeCsv(r).split('\r\n');
    expect(head).toBe(COLUMN_SETS.serve.map((c) => c.key).join(','));
    for (const k of ['requests_ok', 'requests_total', 'load_window_s', 'ttft_p50_s', 'ttft_p99_s', 'tpot_p50_s', 'itl_p50_s', 'e2e_p50_s', 'output_tokens_per_s', 'requests_per_s', 'goodput_requests_per_s', 'tpot_p50_s_median']) expect(head!.split(',')).toContain(k);
    expect(head).not.toMatch(/s_per_token|busy_pct|decode_window_s/);
    expect(leg1).toMatch(/^leg,1,A,A0 THREADS=1,serve,STRICT PASS,harness,false,,12,12,4,4,/);
    const doc = JSON.parse(serializeJson(r));
    expect(doc.columnSet).toBe('serve');
    expect(doc.columns.map((c: { key: string }) => c.key)).toEqual(COLUMN_SETS.serve.map((c) => c.key));
    expect(doc.columns.find((c: { key: string }) => c.key === 'ttft_p50_s').unit).toBe('s');
    expect(doc.arms.map((a: Record<string, unknown>) => [a.arm, a.requests_ok, a.requests_total, a.tpot_p50_s_n])).toEqual([['A', 11, 12, 2], ['B', 12, 12, 2]]);
    expect(doc.legs[3].load_window_s).toBeCloseTo(12, 9);
  });

  it('a driver run keeps the decode columns exactly', () => {
    expect(COLUMN_SETS.decode.map((c) => c.key).join(',')).toBe('row,leg,arm,label,mode,verdict,witness,warmup,legs,tokens_compared,tokens_matched,duration_s,decode_window_s,s_per_token,s_per_token_stdev,s_per_token_median,s_per_token_min,s_per_token_max,s_per_token_n,tokens_per_s,tokens_per_s_stdev,tokens_per_s_median,tokens_per_s_min,tokens_per_s_max,tokens_per_s_n,busy_pct,busy_pct_stdev,busy_pct_median,busy_pct_min,busy_pct_max,busy_pct_n,sm_activity_pct,sm_activity_pct_stdev,sm_activity_pct_median,sm_activity_pct_min,sm_activity_pct_max,sm_activity_pct_n,sm_clock_mhz,sm_clock_mhz_stdev,sm_clock_mhz_median,sm_clock_mhz_min,sm_clock_mhz_max,sm_clock_mhz_n,refused,ratio_vs_baseline,ratio_vs_baseline_lo,ratio_vs_baseline_hi,word');
  });
});

describe('summary.md and report.html show the same serve tables', () => {
  it('the leg table with requests and the arm table with the requests rows first', () => {
    const r = serveAbRun();
    const md = renderSummaryMd(r, []);
    expect(md).toContain(`| leg | arm | tokens | requests ok/total | ${SERVE_TITLES.join(' | ')} | time [s] | verdict | end | binary |`);
    expect(md).toMatch(/### Arms\n\n\| figure \| arm \| n \| mean ± σ \| median \| min – max \|\n\|---\|---\|---:\|---:\|---:\|---:\|\n\| requests ok\/total \| A \| 3 \| 11\/12 \(sum over legs\) \|/);
    const html = renderHtml(r, []);
    expect(html).toContain('<th>requests ok/total</th>');
    expect(html).toMatch(/<tr title="requests of arm A, finished of sent: leg 1: 4\/4, leg 4: 3\/4, leg 5: 4\/4"><td>requests ok\/total<\/td>/);
    // A figure cell carries the figure's terms on hover.
    expect(html).toMatch(/<td class="n" title="TPOT p50 0\.100000 s \(nearest rank 2; of 4 values[^"]*">0\.100000<\/td>/);
    expect(html).toMatch(/<tr title="TPOT p50 of arm B over leg 2: 0\.110000, leg 3: REFUSED \(WRONG_TOKENS\), leg 6: 0\.112000">/);
  });
});

describe('the rules under the tables', () => {
  const withLegs = (r: RunResult, legs: RunResult['legs']): RunResult => ({ ...r, legs });

  it('each set has its own figures; a run is a serve run when its legs are loads', () => {
    expect(figuresOf('serve')).toEqual(['ttftP50', 'ttftP99', 'tpotP50', 'itlP50', 'e2eP50', 'outputTokensPerS', 'requestsPerS', 'goodput']);
    expect(figuresOf('decode')).toEqual(['perToken', 'tokensPerS', 'busy', 'smActivity', 'smClock']);
    expect(runSet([{ set: 'decode' }, { set: 'serve' }])).toBe('serve');
    expect(runSet([{ set: 'decode' }])).toBe('decode');
    expect(runSet([])).toBe('decode');
  });

  it('a leg shows only its own set: a driver leg with a serve-named quantity shows none of it', () => {
    const d = leg(0, 'A', 0.01);
    const row = legRow({ ...d, quantities: { ...d.quantities, tpotP50: measured('t', 'x', 1, 's', {}) } });
    expect([row.set, row.figures.tpotP50, row.requests, row.loadWindowS]).toEqual(['decode', null, null, null]);
    expect(row.figures.perToken).toMatchObject({ status: 'measured' });
  });

  it('requests count only those sent; times are spans (end − start)', () => {
    const l = serveLeg(1, 'B', 1.1, null);
    const notSent = { ...l.serve!.requests[3]!, index: 4, sentS: null, end: 'not-sent' as const };
    const row = legRow({ ...l, serve: { ...l.serve!, requests: [...l.serve!.requests, notSent] } });
    expect(row.requests).toEqual({ ok: 4, total: 4 });
    expect(row.durationS).toBeCloseTo(1.5 + 4 * 1.1, 9);
    expect(row.loadWindowS).toBeCloseTo(3.4 * 1.1, 9);
  });

  it('a leg whose server never got ready: no requests (—), no figures; the requests column stays for the others', () => {
    const r = withLegs(serveAbRun(), [serverFailedLeg(0, 'A'), ...serveAbRun().legs.slice(1)]);
    const rows = legRows(r);
    expect([rows[0]!.set, rows[0]!.requests]).toEqual(['serve', null]);
    const g = legGrid(rows);
    expect(g.head[3]).toBe('requests ok/total');
    expect(g.right[3]).toBe(true);
    expect([g.rows[0]![3], g.rows[1]![3]]).toEqual(['—', '4/4']);
    const csv = flatRows(r);
    expect([csv[0]!.requests_ok, csv[0]!.requests_total, csv[0]!.load_window_s, csv[0]!.refused]).toEqual([null, null, null, null]);
    expect(armRows(rows).map((a) => a.requests)).toEqual([{ ok: 7, total: 8 }, { ok: 12, total: 12 }]);
    // Without an SLO, goodput is named under the tables from the first leg that has it, past the failed one.
    expect(unmeasuredLines(legRows(withLegs(serveAbRun(null), [serverFailedLeg(0, 'A'), ...serveAbRun(null).legs.slice(1)])))).toEqual([expect.stringMatching(/^goodput: not measured in any leg — MISSING_TERM/)]);
  });

  it('a figure refused in the first leg and measured in a later one is shown, not named as unmeasured', () => {
    const [, ok, wrong] = serveAbRun().legs;
    expect(unmeasuredFigures(legRows(withLegs(serveAbRun(), [wrong!, ok!])))).toEqual([]);
  });

  it('export rows: a driver run keeps its decode window; a serve leg lists every refusal; an arm row its spread', () => {
    const d = leg(0, 'A', 0.01);
    const decode = flatRows(withLegs(serveAbRun(), [{ ...d, decodeWindow: { startS: 1, endS: 3.5, source: 'harness' } }]))[0]!;
    expect([decode.decode_window_s, 'requests_ok' in decode, 'load_window_s' in decode]).toEqual([2.5, false, false]);
    const decodeArm = flatRows(withLegs(serveAbRun(), [d, leg(1, 'B', 0.02)])).find((x) => x.row === 'arm')!;
    expect(['requests_ok' in decodeArm, decodeArm.s_per_token]).toEqual([false, 0.01]);
    const failedArm = flatRows(withLegs(serveAbRun(), [serverFailedLeg(0, 'A'), serverFailedLeg(1, 'A')])).find((x) => x.row === 'arm')!;
    expect([failedArm.requests_ok, failedArm.requests_total, failedArm.legs]).toEqual([null, null, 2]);
    const rows = flatRows(serveAbRun());
    expect(rows[2]!.refused).toBe(figuresOf('serve').map((k) => `${({ ttftP50: 'ttft_p50_s', ttftP99: 'ttft_p99_s', tpotP50: 'tpot_p50_s', itlP50: 'itl_p50_s', e2eP50: 'e2e_p50_s', outputTokensPerS: 'output_tokens_per_s', requestsPerS: 'requests_per_s', goodput: 'goodput_requests_per_s' } as const)[k as 'ttftP50']}=WRONG_TOKENS`).join('; '));
    const b = rows.find((x) => x.row === 'arm' && x.arm === 'B')!;
    expect([b.tpot_p50_s, b.tpot_p50_s_median, b.tpot_p50_s_min, b.tpot_p50_s_max, b.tpot_p50_s_n]).toEqual([expect.closeTo(0.111, 9), expect.closeTo(0.111, 9), expect.closeTo(0.11, 9), expect.closeTo(0.112, 9), 2]);
    expect(b.tpot_p50_s_stdev).toBeCloseTo(Math.SQRT2 * 0.001, 9);
  });

  it('arms in order: A before B, a sweep\'s by value, other names as first run; a leg\'s witness from its record', () => {
    expect(orderArms(['B', 'A'])).toEqual(['A', 'B']);
    expect(orderArms(['T=4', 'T=16', 'T=1'])).toEqual(['T=1', 'T=4', 'T=16']);
    expect(orderArms(['T=b', 'T=a'])).toEqual(['T=b', 'T=a']);
    expect(orderArms(['x', 'y=1'])).toEqual(['x', 'y=1']);
    const d = leg(0, 'A', 0.01);
    expect(legWitness({ ...d, witness: 'harness', tokens: { ...d.tokens!, source: 'engine claim' } })).toBe('harness');
    expect(legWitness({ ...d, witness: 'engine' })).toBe('engine');
    expect(legWitness({ ...d, witness: undefined as never, tokens: { ...d.tokens!, source: 'engine claim' } })).toBe('engine');
  });
});

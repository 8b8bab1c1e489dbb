import { describe, expect, it } from 'vitest';
import { perOutputToken } from '../../src/quantity/perToken.js';
import { busyFromSamples } from '../../src/quantity/busy.js';
import { compareToBaseline, delta, ratio, archClaimKey } from '../../src/quantity/compare.js';
import { quantityJson, renderQuantity, formatValue } from '../../src/quantity/render.js';
import { measured, refused, withheld } from '../../src/quantity/make.js';
import type { Silicon } from '../../src/silicon/types.js';
import type { Baseline } from '../../src/config/recipe.js';

const VLLM: Baseline = { name: 'vLLM per output token', quantity: 'perOutputToken', value: 0.014369, unit: 's', arch: '121a', source: 'seeds' };

function gpu(name: string, cc: string): Silicon {
  return { kind: 'gpu', gpuName: name, uuid: 'GPU-1', computeCapability: cc, smArch: null, archTarget: null, driverVersion: null, cudaDriverVersion: null, maxSmClockMHz: null, cpuModel: 'x', source: 'nvml' };
}

describe('perOutputToken', () => {
  it('prints the SPEC line: window ÷ tokens with the window, the token count and the excluded load', () => {
    const q = perOutputToken({ decodeWindowS: 13.8, tokensCompared: 96, loadS: 280.9 });
    expect(renderQuantity(q)).toBe('per output token 0.143750 s (decode window 13.800 s / 96 tokens compared; engine load 280.9 s excluded)');
  });

  it('never subtracts the load again: the load is outside the window', () => {
    const q = perOutputToken({ decodeWindowS: 74.511, tokensCompared: 96, loadS: 654.7 });
    expect(q.status).toBe('measured');
    if (q.status === 'measured') expect(q.value).toBeCloseTo(74.511 / 96, 12);
  });

  it('refuses zero tokens with the SPEC line', () => {
    expect(renderQuantity(perOutputToken({ decodeWindowS: 13.8, tokensCompared: 0, loadS: 1 }))).toBe(
      'per output token REFUSED (ZERO_DENOMINATOR): 0 tokens compared — a rate here would divide by nothing',
    );
  });

  it.each([
    [{ decodeWindowS: 13.8, tokensCompared: null }, 'MISSING_TERM'],
    [{ decodeWindowS: 13.8, tokensCompared: undefined }, 'MISSING_TERM'],
    [{ decodeWindowS: null, tokensCompared: 96 }, 'WINDOW_UNKNOWN'],
    [{ decodeWindowS: null, tokensCompared: 96, windowMissing: 'no-arrival-times' as const }, 'MISSING_TERM'],
    [{ decodeWindowS: -2, tokensCompared: 96 }, 'NON_POSITIVE_WINDOW'],
    [{ decodeWindowS: 0, tokensCompared: 96 }, 'NON_POSITIVE_WINDOW'],
    [{ decodeWindowS: Number.NaN, tokensCompared: 96 }, 'NON_FINITE'],
    [{ decodeWindowS: Infinity, tokensCompared: 96 }, 'NON_FINITE'],
    [{ decodeWindowS: 5, tokensCompared: 96, loadS: Number.NaN }, 'NON_FINITE'],
    [{ decodeWindowS: 5, tokensCompared: Number.NaN }, 'NON_FINITE'],
    [{ decodeWindowS: 5, tokensCompared: -1 }, 'ZERO_DENOMINATOR'],
    [{ decodeWindowS: 5, tokensCompared: 96, tokensMatched: 93 }, 'WRONG_TOKENS'],
  ])('refuses %o as %s', (input, reason) => {
    const q = perOutputToken(input);
    expect(q.status).toBe('refused');
    if (q.status === 'refused') expect(q.reason).toBe(reason);
  });

  it('keeps a full match measured and says when the load was not reported', () => {
    const q = perOutputToken({ decodeWindowS: 10, tokensCompared: 96, tokensMatched: 96 });
    expect(renderQuantity(q)).toBe('per output token 0.104167 s (decode window 10.000 s / 96 tokens compared; engine load not reported)');
  });

  it('renders JSON in the SPEC shape', () => {
    const j = quantityJson(perOutputToken({ decodeWindowS: 13.8, tokensCompared: 96, loadS: 280.9 }));
    expect(j.status).toBe('measured');
    expect(j.unit).toBe('s');
    expect(j.value).toBeCloseTo(0.14375, 12);
    expect((j.terms as Record<string, { value: number }>).tokensCompared?.value).toBe(96);
    expect(quantityJson(perOutputToken({ decodeWindowS: 1, tokensCompared: 0 }))).toEqual({
      status: 'refused',
      name: 'per output token',
      reason: 'ZERO_DENOMINATOR',
      message: '0 tokens compared — a rate here would divide by nothing',
    });
  });
});

describe('busyFromSamples', () => {
  const w = { startS: 10, endS: 20 };

  it('time-weights samples by the period each covers, clipped to the window', () => {
    // 100% over (9,12] → clipped to 2 s; 0% over (12,16]; 50% over (16,20] → (200 + 0 + 200) / 10 = 40%
    const s = [
      { tS: 9, gpuPct: 80 },
      { tS: 12, gpuPct: 100 },
      { tS: 16, gpuPct: 0 },
      { tS: 20, gpuPct: 50 },
    ];
    const { timeWeighted, nonzeroShare } = busyFromSamples(s, w);
    expect(timeWeighted.status).toBe('measured');
    if (timeWeighted.status !== 'measured') return;
    expect(timeWeighted.value).toBeCloseTo(40, 10);
    expect(timeWeighted.terms.coverage?.value).toBeCloseTo(1, 10);
    expect(timeWeighted.terms.samples?.value).toBe(3);
    expect(renderQuantity(timeWeighted)).toBe('GPU busy 40.00% (time-weighted mean of 3 driver samples over a 10.000 s window; coverage 100.0%, median sample period 4.000 s)');
    // seeds' count: 12 (100) and 20 (50) nonzero, 16 zero → 2 of 3
    expect(renderQuantity(nonzeroShare)).toBe('GPU busy (nonzero-sample share) 2 of 3 samples = 66.67% — an upper bound (a sample > 0 is not a busy period)');
  });

  it('uses a stated periodS and reports partial coverage rather than stretching samples over gaps', () => {
    const s = [
      { tS: 12, gpuPct: 100, periodS: 1 },
      { tS: 18, gpuPct: 100, periodS: 1 },
    ];
    const t = busyFromSamples(s, w).timeWeighted;
    expect(t.status).toBe('measured');
    if (t.status === 'measured') {
      expect(t.value).toBeCloseTo(100, 10);
      expect(t.terms.coverage?.value).toBeCloseTo(0.2, 10);
    }
  });

  it('uses the nominal period for a first sample with no predecessor', () => {
    const t = busyFromSamples([{ tS: 11, gpuPct: 30 }], w, { nominalPeriodS: 0.5 }).timeWeighted;
    expect(t.status === 'measured' && t.terms.coveredS?.value).toBeCloseTo(0.5, 10);
    const none = busyFromSamples([{ tS: 11, gpuPct: 30 }], w).timeWeighted;
    expect(none.status === 'refused' && none.reason).toBe('NO_SAMPLES');
  });

  it('NO_SAMPLES when nothing falls in the window — never 0%', () => {
    const { timeWeighted, nonzeroShare } = busyFromSamples([{ tS: 1, gpuPct: 0 }, { tS: 2, gpuPct: 0 }], w);
    expect(timeWeighted.status === 'refused' && timeWeighted.reason).toBe('NO_SAMPLES');
    expect(nonzeroShare.status === 'refused' && nonzeroShare.reason).toBe('NO_SAMPLES');
    expect(renderQuantity(timeWeighted)).toMatch(/REFUSED \(NO_SAMPLES\).*not 0%/);
    expect(busyFromSamples([], w).timeWeighted.status).toBe('refused');
  });

  it('WINDOW_UNKNOWN when the load line never appeared; bad windows refused by name', () => {
    const s = [{ tS: 12, gpuPct: 10 }];
    expect(busyFromSamples(s, null).timeWeighted).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN' });
    expect(busyFromSamples(s, null, { windowMissing: 'no-arrival-times' }).timeWeighted).toMatchObject({ reason: 'MISSING_TERM' });
    expect(busyFromSamples(s, { startS: 5, endS: 3 }).timeWeighted).toMatchObject({ reason: 'NON_POSITIVE_WINDOW' });
    expect(busyFromSamples(s, { startS: 5, endS: 5 }).nonzeroShare).toMatchObject({ reason: 'NON_POSITIVE_WINDOW' });
    expect(busyFromSamples(s, { startS: Number.NaN, endS: 3 }).timeWeighted).toMatchObject({ reason: 'NON_FINITE' });
  });

  it('does not double-count overlapping stated periods', () => {
    const s = [
      { tS: 12, gpuPct: 100, periodS: 2 },
      { tS: 13, gpuPct: 0, periodS: 2 },
    ];
    const t = busyFromSamples(s, w).timeWeighted;
    expect(t.status === 'measured' && t.terms.coveredS?.value).toBeCloseTo(3, 10);
    expect(t.status === 'measured' && t.value).toBeCloseTo(200 / 3, 10);
  });
});

describe('comparisons', () => {
  const run = perOutputToken({ decodeWindowS: 13.8, tokensCompared: 96, loadS: 280.9 });

  it('quotes the baseline ratio only on the baseline arch', () => {
    const same = compareToBaseline(run, VLLM, '121a');
    expect(renderQuantity(same)).toBe('per output token vs vLLM per output token 10.004x (0.143750 s / 0.014369 s; both on 121a)');
    const other = compareToBaseline(run, VLLM, '110');
    expect(other).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    expect(renderQuantity(other)).toMatch(/^per output token vs vLLM per output token WITHHELD \(CROSS_SILICON\): .*121a.*110/);
    expect(compareToBaseline(run, VLLM, 'sm_90')).toMatchObject({ reason: 'CROSS_SILICON' });
    expect(compareToBaseline(run, VLLM, null)).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
    expect(compareToBaseline(run, VLLM, 'banana')).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
  });

  it('a refused run figure makes the comparison refused, not withheld', () => {
    const r = compareToBaseline(perOutputToken({ decodeWindowS: 1, tokensCompared: 0 }), VLLM, '121a');
    expect(r).toMatchObject({ status: 'refused', reason: 'ZERO_DENOMINATOR' });
    expect(compareToBaseline(withheld('x', 'CROSS_SILICON', 'm'), VLLM, '121a')).toMatchObject({ status: 'withheld' });
  });

  it('refuses a baseline of a different unit or of value 0', () => {
    expect(compareToBaseline(run, { ...VLLM, unit: 'ms' }, '121a')).toMatchObject({ status: 'refused', reason: 'AMBIGUOUS' });
    expect(compareToBaseline(run, { ...VLLM, value: 0 }, '121a')).toMatchObject({ status: 'refused', reason: 'ZERO_DENOMINATOR' });
  });

  it('arch claims normalise: 121a = sm_121a = 121, 90 ≠ 121a, nonsense is null', () => {
    expect(archClaimKey('121a')).toBe(archClaimKey('sm_121a'));
    expect(archClaimKey('121')).toBe('cc12.1');
    expect(archClaimKey('90a')).toBe('cc9.0');
    expect(archClaimKey('CPU')).toBe('cpu');
    expect(archClaimKey('sm_x')).toBeNull();
    expect(archClaimKey(undefined)).toBeNull();
  });

  const h200 = gpu('NVIDIA H200', '9.0');
  const gb10 = gpu('NVIDIA GB10', '12.1');
  const a = measured('on', 'perOutputToken', 0.776159, 's', {}, { silicon: h200 });
  const b = measured('off', 'perOutputToken', 0.773156, 's', {}, { silicon: h200 });

  it('ratio and delta on one silicon, with the terms printed', () => {
    const r = ratio(a, b);
    expect(r.status === 'measured' && r.value).toBeCloseTo(0.776159 / 0.773156, 12);
    expect(renderQuantity(r)).toBe('on / off 1.004x (0.776159 s / 0.773156 s)');
    const d = delta(a, b);
    expect(renderQuantity(d)).toBe('on − off +0.003003 s (+0.39%; 0.776159 s − 0.773156 s)');
    expect(renderQuantity(delta(b, a))).toBe('off − on -0.003003 s (-0.39%; 0.773156 s − 0.776159 s)');
  });

  it('withheld CROSS_SILICON when silicon keys differ, MISSING_TERM when unknown', () => {
    const c = measured('c', 'perOutputToken', 1, 's', {}, { silicon: gb10 });
    expect(ratio(a, c)).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    expect(delta(a, c)).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    const bare = measured('bare', 'perOutputToken', 1, 's', {});
    expect(ratio(a, bare)).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
    expect(ratio(bare, a)).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
  });

  it('refused when a side is refused (refusal outranks withholding), zero denominators refused', () => {
    const ref = refused('x', 'NO_SAMPLES', 'none');
    const wh = withheld('y', 'CROSS_SILICON', 'other box');
    expect(ratio(ref, a)).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
    expect(ratio(a, ref)).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
    expect(ratio(wh, ref)).toMatchObject({ status: 'refused' });
    expect(delta(a, wh)).toMatchObject({ status: 'withheld', reason: 'CROSS_SILICON' });
    const zero = measured('z', 'perOutputToken', 0, 's', {}, { silicon: h200 });
    expect(ratio(a, zero)).toMatchObject({ status: 'refused', reason: 'ZERO_DENOMINATOR' });
    const pct = measured('p', 'busy', 5, '%', {}, { silicon: h200 });
    expect(delta(a, pct)).toMatchObject({ status: 'refused', reason: 'AMBIGUOUS' });
    expect(ratio(a, pct)).toMatchObject({ status: 'measured', unit: 's/%' });
    const nan = measured('n', 'perOutputToken', Number.NaN, 's', {}, { silicon: h200 });
    expect(ratio(a, nan)).toMatchObject({ status: 'refused', reason: 'NON_FINITE' });
    expect(delta(nan, a)).toMatchObject({ status: 'refused', reason: 'NON_FINITE' });
  });

  it('delta against 0 says the relative change is undefined', () => {
    const zero = measured('z', 'x', 0, 's', {}, { silicon: h200 });
    expect(renderQuantity(delta(a, zero))).toContain('relative change undefined');
  });
});

describe('rendering', () => {
  it('formats by unit in one place', () => {
    expect(formatValue(1.5, 's')).toBe('1.500000 s');
    expect(formatValue(6.314, '%')).toBe('6.31%');
    expect(formatValue(54.71, 'x')).toBe('54.710x');
    expect(formatValue(0.998, 'fraction')).toBe('99.8%');
    expect(formatValue(123.4567891, 'tokens')).toBe('123.457 tokens');
    expect(formatValue(Number.NaN, 's')).toBe('NaN');
  });

  it('withheld and generic shapes', () => {
    expect(renderQuantity(withheld('GPU busy vs b', 'CROSS_SILICON', 'taken on 121a'))).toBe('GPU busy vs b WITHHELD (CROSS_SILICON): taken on 121a');
    expect(renderQuantity(measured('thing', 'unknownKind', 2, 'MiB', { n: { value: 3, unit: 'legs', label: 'legs' }, note: { value: 'x' } }))).toBe('thing 2 MiB (legs 3 legs; note x)');
    const j = quantityJson(measured('thing', 'k', 2, 'MiB', {}, { silicon: null, provenance: { sources: ['a'] } }));
    expect(j).toEqual({ status: 'measured', name: 'thing', kind: 'k', value: 2, unit: 'MiB', terms: {}, silicon: null, provenance: { sources: ['a'] } });
  });
});

describe('found by the property tests', () => {
  it('a rate that underflows to 0 is refused, not printed as 0.000000 s', () => {
    expect(perOutputToken({ decodeWindowS: 5e-324, tokensCompared: 2 })).toMatchObject({ status: 'refused', reason: 'NON_FINITE' });
  });
});

describe('busy resolution', () => {
  it('says so beside the figure when the window is shorter than two sample periods (the H200 tiny decode: 0.021 s inside 0.2 s samples)', () => {
    const s = [{ tS: 10.0, gpuPct: 0 }, { tS: 10.2, gpuPct: 5 }, { tS: 10.4, gpuPct: 0 }, { tS: 10.6, gpuPct: 0 }, { tS: 10.8, gpuPct: 0 }];
    const coarse = busyFromSamples(s, { startS: 10.05, endS: 10.071 }).timeWeighted;
    expect(coarse.status).toBe('measured');
    expect(renderQuantity(coarse)).toMatch(/window shorter than two sample periods — the figure includes activity outside it/);
    const fine = busyFromSamples(s, { startS: 10.0, endS: 10.8 }).timeWeighted;
    expect(renderQuantity(fine)).not.toMatch(/window shorter/);
  });
});

describe('busy edges (pinned so the accounting cannot drift)', () => {
  const w = { startS: 10, endS: 20 };
  it('non-finite samples are ignored, not averaged', () => {
    const t = busyFromSamples([{ tS: 11, gpuPct: 50, periodS: 1 }, { tS: Number.NaN, gpuPct: 100 }, { tS: 12, gpuPct: Number.NaN, periodS: 1 }], w).timeWeighted;
    expect(t).toMatchObject({ status: 'measured', value: 50 });
    expect(t.status === 'measured' && t.terms.samples?.value).toBe(1);
  });

  it('periodS 0 is treated as no stated period (falls back to the previous sample)', () => {
    const t = busyFromSamples([{ tS: 11, gpuPct: 0, periodS: 1 }, { tS: 15, gpuPct: 100, periodS: 0 }], w).timeWeighted;
    expect(t.status === 'measured' && t.terms.coveredS?.value).toBeCloseTo(5, 10);
    expect(t.status === 'measured' && t.value).toBeCloseTo(80, 10);
  });

  it('a sample whose period ends exactly at the window start covers nothing; one at the end counts in the share', () => {
    const { timeWeighted, nonzeroShare } = busyFromSamples([{ tS: 10, gpuPct: 100, periodS: 1 }, { tS: 20, gpuPct: 0, periodS: 10 }], w);
    expect(timeWeighted.status === 'measured' && timeWeighted.terms.samples?.value).toBe(1);
    expect(timeWeighted.status === 'measured' && timeWeighted.value).toBe(0);
    expect(nonzeroShare.status === 'measured' && [nonzeroShare.terms.nonzero?.value, nonzeroShare.terms.samples?.value]).toEqual([1, 2]);
    const outside = busyFromSamples([{ tS: 9.99, gpuPct: 100 }, { tS: 20.01, gpuPct: 100 }], w).nonzeroShare;
    expect(outside.status).toBe('refused');
  });

  it('the median sample period is the middle of the sorted periods', () => {
    const t = busyFromSamples([{ tS: 11, gpuPct: 1, periodS: 1 }, { tS: 14, gpuPct: 1, periodS: 3 }, { tS: 16, gpuPct: 1, periodS: 2 }], w).timeWeighted;
    expect(t.status === 'measured' && t.terms.samplePeriodS?.value).toBe(2);
    const u = busyFromSamples([{ tS: 19, gpuPct: 1, periodS: 3 }, { tS: 19.5, gpuPct: 1, periodS: 0.5 }, { tS: 20, gpuPct: 1, periodS: 0.25 }], w).timeWeighted;
    expect(u.status === 'measured' && u.terms.samplePeriodS?.value).toBe(0.5);
  });

  it('samples out of order are sorted before periods are assigned', () => {
    const t = busyFromSamples([{ tS: 16, gpuPct: 0 }, { tS: 12, gpuPct: 100 }, { tS: 20, gpuPct: 0 }], w).timeWeighted;
    expect(t.status === 'measured' && t.value).toBeCloseTo(0, 10);
    expect(t.status === 'measured' && t.terms.coveredS?.value).toBeCloseTo(8, 10);
  });

  it('arch claims: whitespace and an optional sm_ prefix, anchored', () => {
    expect(archClaimKey(' 121a ')).toBe('cc12.1');
    expect(archClaimKey('sm90')).toBe('cc9.0');
    expect(archClaimKey('xsm_90')).toBeNull();
  });
});

describe('busy over a window that samples barely touch', () => {
  it('a denormal sample period covers nothing of the window: NO_SAMPLES, not a measured 0% with 0 coverage', async () => {
    const { busyFromSamples } = await import('../../src/quantity/busy.js');
    const { timeWeighted } = busyFromSamples([{ tS: 0, gpuPct: 0 }, { tS: 5e-324, gpuPct: 0 }], { startS: 0, endS: 2 });
    expect(timeWeighted).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
  });
});

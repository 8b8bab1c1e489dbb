import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { perOutputToken, tokensPerSecond } from '../../src/quantity/perToken.js';
import { busyFromSamples } from '../../src/quantity/busy.js';
import { compareToBaseline, delta, ratio } from '../../src/quantity/compare.js';
import { isMeasured, measured, refused, withheld } from '../../src/quantity/make.js';
import { quantityJson, renderQuantity } from '../../src/quantity/render.js';
import type { Quantity } from '../../src/quantity/types.js';
import type { Silicon } from '../../src/silicon/types.js';
import type { Baseline } from '../../src/config/recipe.js';

// Every message, term, unit and label a user can see, pinned in test/core/golden/quantities.json.
// A deliberate change is accepted explicitly: NHG_ACCEPT=1 npx vitest run test/core/quantity-golden.test.ts
const GOLDEN = join(import.meta.dirname, 'golden', 'quantities.json');

const h200: Silicon = { kind: 'gpu', gpuName: 'NVIDIA H200', uuid: 'GPU-a', computeCapability: '9.0', smArch: 'sm_90', archTarget: '90a', driverVersion: '570', cudaDriverVersion: '12.8', maxSmClockMHz: 1980, cpuModel: 'x', source: 'nvml' };
const gb10: Silicon = { ...h200, gpuName: 'NVIDIA GB10', computeCapability: '12.1' };
const VLLM: Baseline = { name: 'vLLM per output token', quantity: 'perOutputToken', value: 0.014369, unit: 's', arch: '121a', source: 'seeds' };
const W = { startS: 10, endS: 20 };
const on = measured('on', 'perOutputToken', 0.776159, 's', {}, { silicon: h200 });
const off = measured('off', 'perOutputToken', 0.773156, 's', {}, { silicon: h200 });

function scenarios(): Record<string, Quantity> {
  const busy = (s: Parameters<typeof busyFromSamples>[0], w: Parameters<typeof busyFromSamples>[1], o?: Parameters<typeof busyFromSamples>[2]) => busyFromSamples(s, w, o);
  const b1 = busy([{ tS: 9, gpuPct: 80 }, { tS: 12, gpuPct: 100 }, { tS: 16, gpuPct: 0 }, { tS: 20, gpuPct: 50 }], W, { silicon: h200 });
  const nowin = busy([{ tS: 12, gpuPct: 1 }], null);
  const noTimes = busy([{ tS: 12, gpuPct: 1 }], null, { windowMissing: 'no-arrival-times' });
  const nanWin = busy([{ tS: 12, gpuPct: 1 }], { startS: Number.NaN, endS: 1 });
  const negWin = busy([{ tS: 12, gpuPct: 1 }], { startS: 5, endS: 3 });
  const empty = busy([{ tS: 1, gpuPct: 0 }], W);
  const perTok = perOutputToken({ decodeWindowS: 13.8, tokensCompared: 96, loadS: 280.9, silicon: h200, provenance: { sources: ['a3.log'] } });
  return {
    perTokenMeasured: perTok,
    perTokenNoLoad: perOutputToken({ decodeWindowS: 10, tokensCompared: 96 }),
    perTokenMissingTokens: perOutputToken({ decodeWindowS: 10, tokensCompared: null }),
    perTokenWindowUnknown: perOutputToken({ decodeWindowS: null, tokensCompared: 96 }),
    perTokenNoTimes: perOutputToken({ decodeWindowS: undefined, tokensCompared: 96, windowMissing: 'no-arrival-times' }),
    perTokenNanLoad: perOutputToken({ decodeWindowS: 10, tokensCompared: 96, loadS: Number.NaN }),
    perTokenNanMatched: perOutputToken({ decodeWindowS: 10, tokensCompared: 96, tokensMatched: Infinity }),
    perTokenZero: perOutputToken({ decodeWindowS: 10, tokensCompared: 0 }),
    perTokenNegWindow: perOutputToken({ decodeWindowS: -2, tokensCompared: 96 }),
    perTokenWrong: perOutputToken({ decodeWindowS: 10, tokensCompared: 96, tokensMatched: 93 }),
    perTokenUnderflow: perOutputToken({ decodeWindowS: 5e-324, tokensCompared: 2 }),
    tokensPerSecond: tokensPerSecond(perTok),
    tokensPerSecondSlow: tokensPerSecond(perOutputToken({ decodeWindowS: 300, tokensCompared: 21 })),
    tokensPerSecondRefused: tokensPerSecond(perOutputToken({ decodeWindowS: 10, tokensCompared: 96, tokensMatched: 93 })),
    tokensPerSecondNoTerms: tokensPerSecond(measured('per output token', 'perOutputToken', 0.1, 's', {})),
    tokensPerSecondZeroWindow: tokensPerSecond(measured('per output token', 'perOutputToken', 0.1, 's', { decodeWindowS: { value: 0, unit: 's' }, tokensCompared: { value: 3, unit: 'tokens' } })),
    tokensPerSecondWithheld: tokensPerSecond(withheld('w', 'CROSS_SILICON', 'elsewhere')),
    busyMeasured: b1.timeWeighted,
    busyShare: b1.nonzeroShare,
    busyNoWindow: nowin.timeWeighted,
    busyNoWindowShare: nowin.nonzeroShare,
    busyNoTimes: noTimes.timeWeighted,
    busyNanWindow: nanWin.timeWeighted,
    busyNegWindowShare: negWin.nonzeroShare,
    busyNoSamples: empty.timeWeighted,
    busyNoSamplesShare: empty.nonzeroShare,
    baselineSameArch: compareToBaseline(perTok, VLLM, '121a'),
    baselineCross: compareToBaseline(perTok, VLLM, '110'),
    baselineNoArch: compareToBaseline(perTok, VLLM, undefined),
    baselineNullArch: compareToBaseline(perTok, VLLM, null),
    baselineBadRunArch: compareToBaseline(perTok, VLLM, 'zz'),
    baselineBadBaseArch: compareToBaseline(perTok, { ...VLLM, arch: 'qq' }, '121a'),
    baselineRefusedSide: compareToBaseline(perOutputToken({ decodeWindowS: 1, tokensCompared: 0 }), VLLM, '121a'),
    baselineWithheldSide: compareToBaseline(withheld('w', 'CROSS_SILICON', 'elsewhere'), VLLM, '121a'),
    baselineUnits: compareToBaseline(perTok, { ...VLLM, unit: 'ms' }, '121a'),
    baselineZero: compareToBaseline(perTok, { ...VLLM, value: 0 }, '121a'),
    ratioOk: ratio(on, off),
    ratioNamed: ratio(on, off, 'on/off'),
    ratioCross: ratio(on, measured('c', 'x', 1, 's', {}, { silicon: gb10 })),
    ratioNoSiliconA: ratio(measured('bare', 'x', 1, 's', {}), on),
    ratioNoSiliconB: ratio(on, measured('bare', 'x', 1, 's', {})),
    ratioRefused: ratio(on, refused('r', 'NO_SAMPLES', 'none in window')),
    ratioWithheld: ratio(withheld('w', 'CROSS_SILICON', 'elsewhere'), on),
    ratioZero: ratio(on, measured('z', 'x', 0, 's', {}, { silicon: h200 })),
    ratioNaN: ratio(on, measured('n', 'x', Number.NaN, 's', {}, { silicon: h200 })),
    ratioUnits: ratio(on, measured('p', 'x', 4, '%', {}, { silicon: h200 })),
    deltaOk: delta(on, off),
    deltaNamed: delta(on, off, 'on-off'),
    deltaUnits: delta(on, measured('p', 'x', 4, '%', {}, { silicon: h200 })),
    deltaNaN: delta(measured('n', 'x', Number.NaN, 's', {}, { silicon: h200 }), on),
    deltaZeroB: delta(on, measured('z', 'x', 0, 's', {}, { silicon: h200 })),
    deltaCross: delta(on, measured('c', 'x', 1, 's', {}, { silicon: gb10 })),
    deltaRefused: delta(refused('r', 'NO_SAMPLES', 'none'), on),
    generic: measured('thing', 'unknownKind', 2, 'MiB', { n: { value: 3, unit: 'legs', label: 'legs' }, note: { value: 'x' } }),
  };
}

function render(): Record<string, { text: string; json: unknown; measured: boolean }> {
  const out: Record<string, { text: string; json: unknown; measured: boolean }> = {};
  for (const [k, q] of Object.entries(scenarios())) out[k] = { text: renderQuantity(q), json: JSON.parse(JSON.stringify(quantityJson(q))), measured: isMeasured(q) };
  return out;
}

describe('quantity golden file', () => {
  it('every rendered line and JSON document matches test/core/golden/quantities.json', () => {
    const actual = render();
    // Accepting is explicit (NHG_ACCEPT=1); a missing golden fails, it never writes itself.
    if (process.env.NHG_ACCEPT === '1') writeFileSync(GOLDEN, JSON.stringify(actual, null, 2) + '\n');
    expect(existsSync(GOLDEN), `${GOLDEN} is missing: review the output and accept it with NHG_ACCEPT=1`).toBe(true);
    const expected = JSON.parse(readFileSync(GOLDEN, 'utf8'));
    expect(actual).toEqual(expected);
  });
});

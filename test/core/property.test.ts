import fc from 'fast-check';

// A fixed seed, so CI is deterministic; set NHG_FC_SEED to explore others (a found counterexample becomes a unit test).
fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261201) });
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/analyze/analyze.js';
import { createDriverReader } from '../../src/profiles/reader.js';
import { parseTimedLine } from '../../src/profiles/timed.js';
import { NEMOTRON_H } from '../../src/profiles/builtin.js';
import { perOutputToken } from '../../src/quantity/perToken.js';
import { busyFromSamples } from '../../src/quantity/busy.js';
import type { Baseline } from '../../src/config/recipe.js';

// Mutation testing runs these once per mutant: it asks for fewer runs (vitest.core.config.ts sets the variable).
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;
import { A3_PASS, ARM_DECODE, DOCTEST_RED, FEATURES_121A, timed } from './fixtures.js';

const BASELINES: Baseline[] = [
  { name: 'vLLM', quantity: 'perOutputToken', value: 0.014369, unit: 's', arch: '121a', source: 's' },
  { name: 'busy', quantity: 'busyFraction', value: 6.31, unit: '%', arch: '121a', source: 's', method: 'nonzeroShare' },
];

const int = fc.integer({ min: 0, max: 200 });
// Lines in the engine's shapes with random values, beside noise: the building blocks of random logs.
const line = fc.oneof(
  fc.float({ min: 0, max: 1000, noNaN: true }).map((s) => `[nemotron-h] engine loaded in ${s}s`),
  fc.tuple(int, int, int, int).map(([p, c, m, w]) => `[nemotron-h] prompt ${p}: prompt_tokens=5 generated=${c} golden_width=${w} compared=${c} matched=${m} wall=1.5s`),
  fc.tuple(int, int, int, fc.constantFrom('', ', mode=decode', ', mode=fresh-prefill')).map(([m, c, p, mode]) => `[nemotron-h] TOKEN MATCH: ${m}/${c} over ${p} prompt(s) (full rows=${p}, short rows=0${mode})`),
  fc.constantFrom('[nemotron-h] STRICT PASS', '[nemotron-h] DIVERGENCE', '[nemotron-h] REFUSING: no golden', '[nemotron-h] SHORT: 1 row', ARM_DECODE, 'reference-tier', ...DOCTEST_RED, ...FEATURES_121A, ...A3_PASS),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

function runAnalyze(lines: string[], window: { startS: number; endS: number } | null, samples: { tS: number; gpuPct: number }[] | null, arch: string | null) {
  const reader = createDriverReader(NEMOTRON_H);
  let timedLines = 0;
  for (const raw of lines) {
    const { tS, text } = parseTimedLine(raw);
    if (tS !== undefined) timedLines++;
    reader.push(text, tS);
  }
  const report = reader.report();
  return analyze({ report, timed: timedLines > 0, window, samples: samples ? { points: samples, garbage: [] } : null, arch, baselines: BASELINES });
}

// The invariant: a measured figure implies every term it divides is present in the log (or given by flag).
function checkInvariant(lines: string[], a: ReturnType<typeof analyze>, window: { startS: number; endS: number } | null, samples: unknown[] | null, arch: string | null): void {
  const texts = lines.map((l) => parseTimedLine(l).text);
  const hasTokenLine = texts.some((t) => /TOKEN MATCH: \d+\/\d+ over/.test(t));
  const hasLoad = texts.some((t) => t.includes('engine loaded in'));
  const hasTimes = lines.some((l) => parseTimedLine(l).tS !== undefined);
  const q = a.perOutputToken;
  if (q.status === 'measured') {
    expect(hasTokenLine).toBe(true);
    expect(window !== null || (hasLoad && hasTimes)).toBe(true);
    expect(Number.isFinite(q.value) && q.value > 0).toBe(true);
    const compared = q.terms.tokensCompared?.value as number;
    expect(compared).toBeGreaterThan(0);
    expect(texts.some((t) => t.includes(`/${compared} over`))).toBe(true);
  }
  if (a.busy) {
    if (a.busy.timeWeighted.status === 'measured') {
      expect((samples ?? []).length).toBeGreaterThan(0);
      expect(window !== null || (hasLoad && hasTimes)).toBe(true);
    }
  } else expect(samples).toBeNull();
  for (const b of a.baselines) {
    if (b.status === 'measured') {
      expect(arch).toBe('121a');
      expect(texts.some((t) => /reference[- ]tier/i.test(t))).toBe(false);
    }
  }
}

describe('no random, truncated or shuffled log yields a measured quantity for a term it does not contain', () => {
  it('random logs (engine shapes + noise, any order, with or without arrival times)', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.boolean(),
        fc.option(fc.tuple(fc.double({ min: -10, max: 100, noNaN: true }), fc.double({ min: -10, max: 100, noNaN: true }))),
        fc.option(fc.array(fc.record({ tS: fc.double({ min: 0, max: 60, noNaN: true }), gpuPct: fc.double({ min: 0, max: 100, noNaN: true }) }), { maxLength: 20 })),
        fc.option(fc.constantFrom('121a', '110', '90', 'cpu', 'junk')),
        (rawLines, withTimes, win, samples, arch) => {
          const lines = withTimes ? timed(rawLines, rawLines.map((_, i) => i * 0.75)) : rawLines;
          const window = win ? { startS: win[0], endS: win[1] } : null;
          const a = runAnalyze(lines, window, samples, arch);
          checkInvariant(lines, a, window, samples, arch);
        },
      ),
      { numRuns: runs(400) },
    );
  });

  it('every truncation of a real timed log (cut at any character)', () => {
    const full = timed([...A3_PASS, ARM_DECODE], [0, 300, 304, 308, 313.8, 313.8, 313.9, 313.9, 314]).join('\n');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: full.length }), (cut) => {
        const lines = full.slice(0, cut).split('\n');
        const a = runAnalyze(lines, null, null, '121a');
        checkInvariant(lines, a, null, null, '121a');
        const texts = lines.map((l) => parseTimedLine(l).text);
        // the full line, or its terse form cut exactly after "prompt(s)", is a complete count; any other cut is not
        if (!texts.includes('[nemotron-h] TOKEN MATCH: 96/96 over 3 prompt(s) (full rows=3, short rows=0, mode=decode)') && !texts.includes('[nemotron-h] TOKEN MATCH: 96/96 over 3 prompt(s)')) expect(a.perOutputToken.status).not.toBe('measured');
      }),
      { numRuns: runs(300) },
    );
  });

  it('every shuffle of a real timed log: measured only when the load line arrives before the block', () => {
    const lines = timed([...A3_PASS], [0, 300, 304, 308, 313.8, 313.8, 313.9, 313.9]);
    fc.assert(
      fc.property(fc.shuffledSubarray(lines, { minLength: 0, maxLength: lines.length }), (sub) => {
        const a = runAnalyze(sub, null, null, null);
        checkInvariant(sub, a, null, null, null);
        const order = sub.map((l) => parseTimedLine(l).text);
        const iLoad = order.findIndex((t) => t.includes('engine loaded'));
        const iBlock = order.findIndex((t) => t.includes('TOKEN MATCH'));
        if (iLoad < 0 || iBlock < 0 || iLoad > iBlock) expect(a.perOutputToken.status).not.toBe('measured');
      }),
      { numRuns: runs(300) },
    );
  });

  it('perOutputToken: measured iff every term is present, finite and positive', () => {
    const term = fc.option(fc.oneof(fc.double(), fc.constant(0), fc.constant(Number.NaN), fc.constant(Infinity)), { nil: undefined });
    fc.assert(
      fc.property(term, term, term, (w, t, l) => {
        const q = perOutputToken({ decodeWindowS: w, tokensCompared: t, loadS: l });
        const ok = w !== undefined && t !== undefined && Number.isFinite(w) && Number.isFinite(t) && w > 0 && t > 0 && (l === undefined || Number.isFinite(l));
        expect(q.status === 'measured').toBe(ok && Number.isFinite(w! / t!) && w! / t! > 0);
      }),
      { numRuns: runs(1000) },
    );
  });

  it('busy: measured only when a sample period overlaps the window; the mean stays within [0, 100]', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tS: fc.double({ min: 0, max: 50, noNaN: true }), gpuPct: fc.double({ min: 0, max: 100, noNaN: true }) }), { maxLength: 30 }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        fc.double({ min: 0, max: 50, noNaN: true }),
        (samples, s0, s1) => {
          const { timeWeighted } = busyFromSamples(samples, { startS: s0, endS: s1 });
          if (timeWeighted.status === 'measured') {
            expect(s1).toBeGreaterThan(s0);
            expect(samples.length).toBeGreaterThan(1); // the first sample has no known period without a nominal one
            expect(timeWeighted.value).toBeGreaterThanOrEqual(0);
            expect(timeWeighted.value).toBeLessThanOrEqual(100 + 1e-9);
            const cov = timeWeighted.terms.coverage?.value as number;
            expect(cov).toBeGreaterThan(0);
            expect(cov).toBeLessThanOrEqual(1 + 1e-9);
          }
        },
      ),
      { numRuns: runs(500) },
    );
  });
});

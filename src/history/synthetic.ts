import { seededRandom } from '../stats/bootstrap.js';
import { normalSampler } from '../stats/normal.js';
import type { LedgerEntry } from '../results/ledger.js';

// Generated ledgers with known steps, for the history test and bench/history-bench.mjs: a planted step
// must be found where it was planted. One generator, so the test and the benchmark read the same shape.

export interface SyntheticSeries {
  gate: string;
  siliconKey: string;
  base: number; // the figure before any step
  relSd: number; // run-to-run noise, relative
  // At which point (0-based, within this series) the figure is multiplied by `factor` from then on.
  steps: Array<{ at: number; factor: number }>;
  withInterval: boolean;
}

// `n` lines, the series interleaved round-robin, one minute apart, deterministic from the seed.
export function syntheticLedger(n: number, series: SyntheticSeries[], seed = 1, start = Date.parse('2026-01-01T00:00:00Z')): LedgerEntry[] {
  const z = normalSampler(seededRandom(seed));
  const counts = series.map(() => 0);
  const out: LedgerEntry[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % series.length;
    const s = series[k]!;
    const j = counts[k]!++;
    const level = s.steps.reduce((v, st) => (j >= st.at ? v * st.factor : v), s.base);
    const value = level * (1 + s.relSd * z());
    const sd = level * s.relSd;
    const fig = s.withInterval ? { value, unit: 'x', lo: value - 1.96 * sd, hi: value + 1.96 * sd } : { value, unit: 'x' };
    out.push({
      schemaVersion: 1, at: new Date(start + i * 60_000).toISOString(), command: 'ab', gate: s.gate, gateSha256: null, recipe: 'nh-ref',
      arch: 'cpu', siliconKey: s.siliconKey, binarySha256: [], verdict: 'SUPPORTED', figures: { ratio: fig }, runDir: `runs/${i}`,
      series: { gate: s.gate, command: 'ab', recipe: 'nh-ref', golden: 'nh-ref-tiny', arms: ['A NH_REF_X=0', 'B NH_REF_X=1'], modes: ['decode'] },
    });
  }
  return out;
}

// JSONL text of entries (the ledger's own format).
export function ledgerText(entries: readonly LedgerEntry[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

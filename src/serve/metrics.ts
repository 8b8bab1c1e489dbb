import type { Quantity, Term } from '../quantity/types.js';
import { measured, refused } from '../quantity/make.js';
import { nearestRankPosition } from '../stats/percentile.js';
import { firstTokenClock, gapClock, requestGaps, type ClockChoice } from './clock.js';
import type { RequestObservation } from './types.js';

// Per-request latencies and their percentiles over a run. Per request: time to first token (sent → first
// token), time per output token (decode time ÷ (tokens − 1)), the inter-token gaps, end-to-end latency (sent →
// last event). Percentiles are nearest-rank (stats/percentile.ts). A request that never finished is counted,
// not dropped: it ranks above every measured value, and a percentile whose rank falls on it is refused
// (TIMEOUT) rather than printed lower than the truth.

export const PERCENTILES = [
  { key: 'P50', p: 50, label: 'p50' },
  { key: 'P90', p: 90, label: 'p90' },
  { key: 'P99', p: 99, label: 'p99' },
  { key: 'Max', p: 100, label: 'max' },
] as const;

export const LATENCY_METRICS = {
  ttft: 'time to first token',
  tpot: 'time per output token',
  itl: 'inter-token latency',
  e2e: 'end-to-end latency',
} as const;
export type LatencyMetric = keyof typeof LATENCY_METRICS;

// One request's figures on the run's clocks; null where the request does not resolve the figure.
export interface RequestFigures {
  index: number;
  finished: boolean;
  ttftS: number | null;
  tpotS: number | null;
  e2eS: number | null;
  gapsS: number[];
}

// The clocks of one run: decode gaps, and the first token.
export interface RunClocks {
  gaps: ClockChoice;
  first: ClockChoice;
}

export function runClocks(requests: readonly RequestObservation[]): RunClocks {
  return { gaps: gapClock(requests), first: firstTokenClock(requests) };
}

// A sent request's figures.
export function requestFigures(r: RequestObservation, clocks: RunClocks): RequestFigures {
  const finished = r.end === 'done';
  const gapsS = clocks.gaps.ok ? requestGaps(r, clocks.gaps.clock) : [];
  const n = r.ids.length;
  const decodeS = gapsS.reduce((s, g) => s + g, 0);
  return {
    index: r.index,
    finished,
    ttftS: r.sentS !== null && r.tokenS.length > 0 && clocks.first.ok ? r.tokenS[0]! - r.sentS : null,
    tpotS: finished && n > 1 && clocks.gaps.ok ? decodeS / (n - 1) : null,
    e2eS: finished && r.sentS !== null && r.endS !== null ? r.endS - r.sentS : null,
    gapsS,
  };
}

// A nearest-rank percentile over measured values plus `censored` values known only to be larger.
export function censoredPercentile(name: string, known: readonly number[], censored: number, p: number, terms: Record<string, Term>): Quantity {
  const n = known.length + censored;
  if (n === 0) return refused(name, 'NO_SAMPLES', 'no request resolves this figure');
  const rank = nearestRankPosition(p, n);
  if (rank > known.length) {
    return refused(name, 'TIMEOUT', `rank ${rank} of ${n} falls among the ${censored} request(s) that did not finish: the value is longer than any measured, and not known`);
  }
  const sorted = [...known].sort((a, b) => a - b);
  return measured(name, 'servePercentile', sorted[rank - 1]!, 's', {
    rank: { value: rank, label: 'nearest rank' },
    of: { value: n, unit: n === 1 ? 'value' : 'values', label: 'of' },
    unfinished: { value: censored, unit: 'requests', label: 'unfinished (ranked above all)' },
    ...terms,
  });
}

// What each metric reads from the requests: measured values, censored count, the clock, what the values are.
function metricInputs(metric: LatencyMetric, figs: readonly RequestFigures[], clocks: RunClocks): { known: number[]; censored: number; clock: ClockChoice; of: string } {
  const unfinished = figs.filter((f) => !f.finished);
  switch (metric) {
    case 'ttft':
      return { known: figs.flatMap((f) => (f.ttftS === null ? [] : [f.ttftS])), censored: unfinished.filter((f) => f.ttftS === null).length, clock: clocks.first, of: 'requests' };
    case 'tpot':
      return { known: figs.flatMap((f) => (f.tpotS === null ? [] : [f.tpotS])), censored: unfinished.length, clock: clocks.gaps, of: 'requests' };
    case 'itl':
      return { known: figs.flatMap((f) => f.gapsS), censored: 0, clock: clocks.gaps, of: 'gaps' };
    case 'e2e':
      return { known: figs.flatMap((f) => (f.e2eS === null ? [] : [f.e2eS])), censored: unfinished.length, clock: { ok: true, clock: 'harness arrival stamps', why: null }, of: 'requests' };
  }
}

// p50/p90/p99/max of every latency metric, keyed e.g. ttftP50, itlMax.
export function latencyFigures(figs: readonly RequestFigures[], clocks: RunClocks): Record<string, Quantity> {
  const out: Record<string, Quantity> = {};
  for (const metric of Object.keys(LATENCY_METRICS) as LatencyMetric[]) {
    const { known, censored, clock, of } = metricInputs(metric, figs, clocks);
    for (const pc of PERCENTILES) {
      const name = `${metric.toUpperCase()} ${pc.label}`;
      const key = `${metric}${pc.key}`;
      if (!clock.ok) {
        out[key] = refused(name, clock.code, clock.why);
        continue;
      }
      const terms: Record<string, Term> = { over: { value: of, label: 'over' }, clock: { value: clock.clock, label: 'clock' } };
      if (clock.why) terms.clockWhy = { value: clock.why, label: 'why this clock' };
      out[key] = censoredPercentile(name, known, censored, pc.p, terms);
    }
  }
  return out;
}

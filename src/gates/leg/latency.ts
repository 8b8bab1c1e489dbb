import type { Quantity } from '../../quantity/types.js';
import { measured, refused } from '../../quantity/make.js';
import type { ModeEvents } from './events.js';
import { nearestRank } from '../../stats/percentile.js';

// Per-token arrival stamps support two more figures than a mean: time to first token (prompt start → first
// token, which includes the prefill) and the spread of inter-token latency. Percentiles are nearest-rank over
// every gap after a prompt's first token, so they are values that were actually observed.

// Median time to first token over the prompts that have both stamps.
export function timeToFirstToken(m: ModeEvents | undefined): Quantity {
  const name = 'time to first token (median over prompts; prompt start → first token arrival)';
  if (!m) return refused(name, 'MISSING_TERM', 'no per-token arrival stamps (the driver wrote no token events)');
  const ttft: number[] = [];
  for (const [prompt, ts] of m.tokenNsByPrompt) {
    const start = m.promptStartNs.get(prompt);
    if (start !== undefined && ts.length > 0) ttft.push(Number(ts[0]! - start) / 1e9);
  }
  if (ttft.length === 0) return refused(name, 'MISSING_TERM', 'no prompt has both a prompt_start event and a token');
  ttft.sort((a, b) => a - b);
  return measured(name, 'latency', nearestRank(ttft, 50), 's', {
    prompts: { value: ttft.length, unit: 'prompts', label: 'prompts' },
    min: { value: ttft[0]!, unit: 's', label: 'min' },
    max: { value: ttft[ttft.length - 1]!, unit: 's', label: 'max' },
  });
}

// p50 / p90 / p99 of the gaps between consecutive token arrivals within each prompt.
export function interTokenLatency(m: ModeEvents | undefined): Quantity {
  const name = 'inter-token latency p50 (nearest rank, arrival stamps)';
  if (!m) return refused(name, 'MISSING_TERM', 'no per-token arrival stamps (the driver wrote no token events)');
  const gaps: number[] = [];
  for (const ts of m.tokenNsByPrompt.values()) for (let i = 1; i < ts.length; i++) gaps.push(Number(ts[i]! - ts[i - 1]!) / 1e9);
  if (gaps.length === 0) return refused(name, 'ZERO_DENOMINATOR', 'no prompt generated two tokens');
  gaps.sort((a, b) => a - b);
  return measured(name, 'latency', nearestRank(gaps, 50), 's', {
    gaps: { value: gaps.length, unit: 'gaps', label: 'gaps' },
    p90: { value: nearestRank(gaps, 90), unit: 's', label: 'p90' },
    p99: { value: nearestRank(gaps, 99), unit: 's', label: 'p99' },
    max: { value: gaps[gaps.length - 1]!, unit: 's', label: 'max' },
  });
}

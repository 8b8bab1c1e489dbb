import type { Quantity } from '../../quantity/types.js';
import { measured, refused } from '../../quantity/make.js';
import type { ModeEvents } from './events.js';
import { nearestRank } from '../../stats/percentile.js';
import { backwardsStamps, collapsedGaps } from './clocks.js';

// Per-token stamps support two more figures than a mean: time to first token (prompt start → first token,
// which includes the prefill) and the spread of inter-token latency. Percentiles are nearest-rank over
// every gap after a prompt's first token, so they are values that were actually observed. Each comes only
// from stamps that resolve it: stamps that run backwards refuse it (CLOCK_BACKWARDS), and tokens that share
// one stamp (several per read or streamed chunk) are not inter-token times (ARRIVALS_COLLAPSED).

export const TTFT = 'time to first token (median over prompts; prompt start → first token arrival)';
export const ITL = 'inter-token latency p50 (nearest rank, arrival stamps)';
export const ITL_ENGINE_TIMER = "inter-token latency (mean, the engine's own timer: arrival stamps collapsed)";

// Median time to first token over the prompts that have both stamps.
export function timeToFirstToken(m: ModeEvents | undefined, loadEndNs: bigint | null = null): Quantity {
  if (!m) return refused(TTFT, 'MISSING_TERM', 'no per-token arrival stamps (the driver wrote no token events)');
  const back = backwardsStamps(loadEndNs, m);
  if (back) return refused(TTFT, 'CLOCK_BACKWARDS', `the event stamps run backwards (${back}) — no latency is taken from them`);
  const ttft: number[] = [];
  let collapsed = 0;
  for (const [prompt, ts] of m.tokenNsByPrompt) {
    const start = m.promptStartNs.get(prompt);
    if (start === undefined || ts.length === 0) continue;
    if (ts.length > 1 && ts[1] === ts[0]) collapsed += 1;
    ttft.push(Number(ts[0]! - start) / 1e9);
  }
  if (ttft.length === 0) return refused(TTFT, 'MISSING_TERM', 'no prompt has both a prompt_start event and a token');
  if (collapsed > 0) return refused(TTFT, 'ARRIVALS_COLLAPSED', `in ${collapsed} of ${ttft.length} prompt(s) the first token shares its arrival stamp with the next (several tokens in one read or streamed chunk), so its own arrival is not known`);
  ttft.sort((a, b) => a - b);
  return measured(TTFT, 'latency', nearestRank(ttft, 50), 's', {
    prompts: { value: ttft.length, unit: 'prompts', label: 'prompts' },
    min: { value: ttft[0]!, unit: 's', label: 'min' },
    max: { value: ttft[ttft.length - 1]!, unit: 's', label: 'max' },
  });
}

// p50 / p90 / p99 of the gaps between consecutive token arrivals within each prompt. Where arrivals
// collapsed, the engine's own timer (when the profile reads one) gives the mean instead, labelled as such.
export function interTokenLatency(m: ModeEvents | undefined, loadEndNs: bigint | null = null, engineTimer: Quantity | null = null): Quantity {
  if (!m) return refused(ITL, 'MISSING_TERM', 'no per-token arrival stamps (the driver wrote no token events)');
  const back = backwardsStamps(loadEndNs, m);
  if (back) return refused(ITL, 'CLOCK_BACKWARDS', `the event stamps run backwards (${back}) — no latency is taken from them`);
  const { zero, gaps: n } = collapsedGaps(m);
  if (n === 0) return refused(ITL, 'ZERO_DENOMINATOR', 'no prompt generated two tokens');
  if (zero > 0) {
    const why = `${zero} of ${n} gaps are 0 s: tokens shared one arrival stamp (several per read or streamed chunk), so the gaps are not inter-token times`;
    if (engineTimer?.status === 'measured') {
      return measured(ITL_ENGINE_TIMER, 'latency', engineTimer.value, 's', { ...engineTimer.terms, collapsed: { value: why, label: 'why not the arrival stamps' } });
    }
    return refused(ITL, 'ARRIVALS_COLLAPSED', `${why}; the profile reads no engine timer to take it from`);
  }
  const gaps: number[] = [];
  for (const ts of m.tokenNsByPrompt.values()) for (let i = 1; i < ts.length; i++) gaps.push(Number(ts[i]! - ts[i - 1]!) / 1e9);
  gaps.sort((a, b) => a - b);
  return measured(ITL, 'latency', nearestRank(gaps, 50), 's', {
    gaps: { value: gaps.length, unit: 'gaps', label: 'gaps' },
    p90: { value: nearestRank(gaps, 90), unit: 's', label: 'p90' },
    p99: { value: nearestRank(gaps, 99), unit: 's', label: 'p99' },
    max: { value: gaps[gaps.length - 1]!, unit: 's', label: 'max' },
  });
}

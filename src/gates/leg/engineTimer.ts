import type { EngineTimerLine } from '../../profiles/types.js';
import type { Quantity } from '../../quantity/types.js';
import { isFiniteNumber, measured, refused } from '../../quantity/make.js';
import type { ModeEvents } from './events.js';
import { backwardsStamps, collapsedGaps } from './clocks.js';

// The two "per output token after the first" figures of one leg: the harness's, from per-token arrival stamps,
// and the engine's own timer (e.g. llama.cpp's eval time). The first token carries the prefill, so both skip it.
// The engine's figure is labelled as the engine's and is never what an A/B compares.

export const HARNESS_AFTER_FIRST = 'per output token after the first (harness, token arrival stamps)';
export const ENGINE_TIMER = "per output token after the first (the engine's own timer)";

// Σ over prompts of (last arrival − first arrival) ÷ Σ (tokens − 1). Refused from stamps that run backwards,
// and where tokens shared one stamp: a first stamp that carries several tokens makes the span too short.
export function harnessAfterFirst(m: ModeEvents | undefined, loadEndNs: bigint | null = null): Quantity {
  if (!m) return refused(HARNESS_AFTER_FIRST, 'MISSING_TERM', 'no per-token arrival stamps (the driver wrote no token events)');
  const back = backwardsStamps(loadEndNs, m);
  if (back) return refused(HARNESS_AFTER_FIRST, 'CLOCK_BACKWARDS', `the event stamps run backwards (${back}) — no time is taken from them`);
  const { zero, gaps } = collapsedGaps(m);
  if (zero > 0) return refused(HARNESS_AFTER_FIRST, 'ARRIVALS_COLLAPSED', `${zero} of ${gaps} gaps are 0 s: tokens shared one arrival stamp (several per read or streamed chunk), so first-to-last spans miss the tokens that arrived with the first — see the engine's own timer where the profile reads one`);
  let spanNs = 0n, steps = 0;
  for (const ts of m.tokenNsByPrompt.values()) {
    if (ts.length < 2) continue;
    spanNs += ts[ts.length - 1]! - ts[0]!;
    steps += ts.length - 1;
  }
  if (steps === 0) return refused(HARNESS_AFTER_FIRST, 'ZERO_DENOMINATOR', 'no prompt generated two tokens — nothing after the first to time');
  const spanS = Number(spanNs) / 1e9;
  if (spanS <= 0) return refused(HARNESS_AFTER_FIRST, 'NON_POSITIVE_WINDOW', `first-to-last arrival span ${spanS} s is not positive`);
  return measured(HARNESS_AFTER_FIRST, 'afterFirst', spanS / steps, 's', {
    windowS: { value: spanS, unit: 's', label: 'first-to-last token arrival, summed over prompts' },
    steps: { value: steps, unit: 'tokens', label: 'tokens after the first' },
  });
}

// Σ engine decode seconds ÷ Σ decode steps, over the engine's timer lines.
export function engineTimerFigure(lines: EngineTimerLine[]): Quantity | null {
  if (lines.length === 0) return null;
  let s = 0, steps = 0;
  for (const l of lines) {
    if (!isFiniteNumber(l.decodeS) || !isFiniteNumber(l.steps)) return refused(ENGINE_TIMER, 'NON_FINITE', `the engine's timer line ${l.line} did not read as a time and a count (unit unknown or garbled)`);
    s += l.decodeS;
    steps += l.steps;
  }
  if (steps <= 0) return refused(ENGINE_TIMER, 'ZERO_DENOMINATOR', `the engine's timer lines count ${steps} decode steps`);
  if (s <= 0) return refused(ENGINE_TIMER, 'NON_POSITIVE_WINDOW', `the engine's timer lines sum to ${s} s`);
  return measured(ENGINE_TIMER, 'afterFirst', s / steps, 's', {
    windowS: { value: s, unit: 's', label: "engine's decode time, summed over its timer lines" },
    steps: { value: steps, unit: 'tokens', label: 'decode steps the engine counted' },
    lines: { value: lines.length, label: 'timer lines' },
  });
}

// harness ÷ engine, with both terms; null when either side is not a number.
export function timerRatio(harness: Quantity, engine: Quantity | null): Quantity | null {
  if (!engine || harness.status !== 'measured' || engine.status !== 'measured') return null;
  return measured('harness / engine timer (per token after the first)', 'ratio', harness.value / engine.value, 'x', {
    numerator: { value: harness.value, unit: 's', label: 'harness' },
    denominator: { value: engine.value, unit: 's', label: "engine's timer" },
  });
}

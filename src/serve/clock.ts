import type { RequestObservation } from './types.js';
import { ENGINE_CLOCK, HARNESS_CLOCK, type ClockName } from '../gates/leg/clocks.js';

// Which clock a serve figure comes from (SPEC §3: a figure comes from a clock that resolves it, and says
// which). The harness's arrival stamps are primary. Tokens that reach the client together (one chunk, or
// reads a few microseconds apart because the server flushed several events at once) do not resolve their
// gaps: those are the server's buffering, not inter-token times. Measured on the CPU llama-server at
// concurrency 2: arrival gaps of 5–30 µs between tokens whose engine timer says 0.3–5 ms apart. Then the
// decode gaps come from the engine's own per-token timer (llama-server's per-token `timings`), and are
// refused where the server reports none. Time to first token stays on the arrival stamps: it is when the
// client saw its first token, buffering included; a note says when first tokens arrived together with the next.

// Gaps shorter than this are tokens that arrived together (no token of a real decode comes 100 µs after the last).
export const TOGETHER_S = 1e-4;

// The clock names a3's figures use too (src/gates/leg/clocks.ts), so a figure says its clock the same way.
export { HARNESS_CLOCK, ENGINE_CLOCK };
export type ServeClockName = ClockName;

export type ClockChoice = { ok: true; clock: ServeClockName; why: string | null } | { ok: false; code: 'ARRIVALS_COLLAPSED' | 'CLOCK_BACKWARDS'; why: string };

// Consecutive tokens of one request that arrived together (less than TOGETHER_S apart), among all gaps.
export function collapsedGaps(requests: readonly RequestObservation[]): { zero: number; gaps: number } {
  let zero = 0;
  let gaps = 0;
  for (const r of requests) {
    for (let i = 1; i < r.tokenS.length; i++) {
      gaps += 1;
      if (r.tokenS[i]! - r.tokenS[i - 1]! < TOGETHER_S) zero += 1;
    }
  }
  return { zero, gaps };
}

// Whether the engine stamped every token of every request that has gaps.
function engineCoversGaps(requests: readonly RequestObservation[]): boolean {
  return requests.every((r) => r.ids.length < 2 || (r.engine !== null && r.engine.tokenMs.length === r.ids.length && r.engine.tokenMs.every((t) => t !== null)));
}

// The clock for inter-token gaps and time per output token.
export function gapClock(requests: readonly RequestObservation[]): ClockChoice {
  const { zero, gaps } = collapsedGaps(requests);
  if (zero === 0) return { ok: true, clock: HARNESS_CLOCK, why: null };
  const why = `${zero} of ${gaps} gaps are under ${TOGETHER_S * 1e6} µs: those tokens reached the client together (the server flushed several at once), so arrival gaps are not inter-token times`;
  if (engineCoversGaps(requests)) {
    const back = requests.find((r) => r.engine!.tokenMs.some((t, i) => i > 0 && t! < r.engine!.tokenMs[i - 1]!));
    if (back) return { ok: false, code: 'CLOCK_BACKWARDS', why: `${why}, and the server's per-token timer runs backwards in request ${back.index}: no gap is taken from it` };
    return { ok: true, clock: ENGINE_CLOCK, why };
  }
  return { ok: false, code: 'ARRIVALS_COLLAPSED', why: `${why}, and the server reported no per-token timer to take them from` };
}

// The clock for time to first token: always the arrival stamps (what the client saw), with a note when first
// tokens arrived together with the next (the server held the first back).
export function firstTokenClock(requests: readonly RequestObservation[]): ClockChoice {
  const withTwo = requests.filter((r) => r.tokenS.length > 1);
  const together = withTwo.filter((r) => r.tokenS[1]! - r.tokenS[0]! < TOGETHER_S).length;
  if (together === 0) return { ok: true, clock: HARNESS_CLOCK, why: null };
  return { ok: true, clock: HARNESS_CLOCK, why: `in ${together} of ${withTwo.length} request(s) the first token arrived together with the next: the time is when the client saw it, the server's buffering included` };
}

// One request's decode gaps (seconds) on the chosen clock.
export function requestGaps(r: RequestObservation, clock: ServeClockName): number[] {
  const out: number[] = [];
  if (clock === ENGINE_CLOCK) {
    const ms = r.engine?.tokenMs ?? [];
    for (let i = 1; i < ms.length; i++) out.push(((ms[i] ?? 0) - (ms[i - 1] ?? 0)) / 1e3);
    return out;
  }
  for (let i = 1; i < r.tokenS.length; i++) out.push(r.tokenS[i]! - r.tokenS[i - 1]!);
  return out;
}

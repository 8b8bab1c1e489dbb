import type { RequestObservation } from './types.js';

// Which clock a serve figure comes from (SPEC §3: a figure comes from a clock that resolves it, and says
// which). The harness's arrival stamps are primary. Tokens read in one chunk share a stamp, and then their
// gaps are not inter-token times: the decode gaps come from the engine's own per-token timer instead (llama-
// server's per-token `timings`), and are refused where the server reports none. A first token that shares its
// stamp with the second has no arrival of its own, and the engine's timer does not cover the queue wait a
// client sees, so time to first token is refused then.

export const HARNESS_CLOCK = 'harness arrival stamps';
export const ENGINE_CLOCK = 'engine event clock';
export type ServeClockName = typeof HARNESS_CLOCK | typeof ENGINE_CLOCK;

export type ClockChoice = { ok: true; clock: ServeClockName; why: string | null } | { ok: false; code: 'ARRIVALS_COLLAPSED'; why: string };

// Consecutive tokens of one request that share one arrival stamp, among all gaps.
export function collapsedGaps(requests: readonly RequestObservation[]): { zero: number; gaps: number } {
  let zero = 0;
  let gaps = 0;
  for (const r of requests) {
    for (let i = 1; i < r.tokenS.length; i++) {
      gaps += 1;
      if (r.tokenS[i] === r.tokenS[i - 1]) zero += 1;
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
  const why = `${zero} of ${gaps} gaps are 0 s: tokens shared one arrival stamp (several per streamed chunk), so the gaps are not inter-token times`;
  if (engineCoversGaps(requests)) return { ok: true, clock: ENGINE_CLOCK, why };
  return { ok: false, code: 'ARRIVALS_COLLAPSED', why: `${why}, and the server reported no per-token timer to take them from` };
}

// The clock for time to first token: arrival stamps, unless a first token arrived together with the next.
export function firstTokenClock(requests: readonly RequestObservation[]): ClockChoice {
  const withTwo = requests.filter((r) => r.tokenS.length > 1);
  const collapsed = withTwo.filter((r) => r.tokenS[0] === r.tokenS[1]).length;
  if (collapsed === 0) return { ok: true, clock: HARNESS_CLOCK, why: null };
  return { ok: false, code: 'ARRIVALS_COLLAPSED', why: `in ${collapsed} of ${withTwo.length} request(s) the first token shares its arrival stamp with the next (several tokens in one streamed chunk), so its own arrival is not known; the engine's timer does not cover the queue wait a client sees` };
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

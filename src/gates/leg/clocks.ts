import type { ModeEvents } from './events.js';

// Which clock a timing figure comes from (SPEC §3: "a figure comes from a clock that resolves it … says which,
// and is refused when stamps run backwards"). The harness's arrival stamps are the primary clock: the harness
// owns them and the engine cannot print a flattering duration. They fail in two ways: a whole decode read in
// one chunk of output (under CPU load the tiny preset's 10–100 ms windows arrive in one read, so the window
// reads 0 s), and tokens streamed several to a chunk (llama-server), so consecutive tokens share one stamp.
// Where the driver writes events with the engine's own times, those resolve the window instead, and say so.

export const HARNESS_CLOCK = 'harness arrival stamps';
// The events file's token stamps, written by the engine or by its driver as tokens reach it.
export const ENGINE_CLOCK = 'engine event clock';
export type ClockName = typeof HARNESS_CLOCK | typeof ENGINE_CLOCK;

// One mode's decode on the engine's clock (CLOCK_MONOTONIC, the harness's clock too: docs/engines.md): its ends
// as the engine's nanosecond integers, and lengths taken from them (absolute seconds lose digits to a long uptime).
export interface EngineTimes {
  startNs: bigint;
  endNs: bigint;
  // The first token's time in absolute seconds, to compare with the harness's arrival stamps.
  firstTokenS: number;
  // load_end → last token.
  windowS: number;
  // The first stamp found out of order, in words; null when every stamp runs forward.
  backwards: string | null;
}

function ms(ns: bigint): string {
  return (Number(ns) / 1e6).toFixed(3);
}

// The first event time that runs backwards: a token before its prompt's start, a token before the one
// written ahead of it, or a decode token before the engine's load ended. null when all run forward.
export function backwardsStamps(loadEndNs: bigint | null, m: ModeEvents): string | null {
  for (const [prompt, ts] of m.tokenNsByPrompt) {
    const start = m.promptStartNs.get(prompt);
    if (start !== undefined && ts.length > 0 && ts[0]! < start) return `prompt ${prompt}: its first token is stamped ${ms(start - ts[0]!)} ms before its prompt_start`;
    for (let i = 1; i < ts.length; i++) {
      if (ts[i]! < ts[i - 1]!) return `prompt ${prompt}: token event ${i + 1} is stamped ${ms(ts[i - 1]! - ts[i]!)} ms before the token event written ahead of it`;
    }
  }
  const first = m.tokenNs[0];
  if (loadEndNs !== null && first !== undefined && first < loadEndNs) return `the first token is stamped ${ms(loadEndNs - first)} ms before load_end`;
  return null;
}

// The engine's decode window (load_end → last token of the mode), or null without those events.
export function engineTimes(loadEndNs: bigint | null, m: ModeEvents | undefined): EngineTimes | null {
  if (loadEndNs === null || !m || m.tokenNs.length === 0) return null;
  let first = m.tokenNs[0]!;
  let last = first;
  for (const t of m.tokenNs) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  return { startNs: loadEndNs, endNs: last, firstTokenS: Number(first) / 1e9, windowS: Number(last - loadEndNs) / 1e9, backwards: backwardsStamps(loadEndNs, m) };
}

export type DecodeClock =
  | { ok: true; windowS: number; clock: ClockName; why: string | null }
  | { ok: false; code: 'NON_POSITIVE_WINDOW' | 'CLOCK_BACKWARDS'; why: string };

// The decode window from the clock that resolves it. Harness arrival stamps unless they cannot: the load
// line and the last row came in one read (window 0), or the load line was read only after the engine had
// produced decode tokens (so its stamp is not the window's start). Then the engine's event clock where the
// driver writes one; only then refused.
export function decodeClock(harness: { startS: number; endS: number }, engine: EngineTimes | null): DecodeClock {
  const harnessS = harness.endS - harness.startS;
  if (harnessS < 0) return { ok: false, code: 'CLOCK_BACKWARDS', why: `the harness's arrival stamps run backwards: the last prompt row is stamped ${(-harnessS).toFixed(6)} s before the load line` };
  const lateS = engine === null ? null : harness.startS - engine.firstTokenS;
  if (harnessS > 0 && (lateS === null || lateS < 0)) return { ok: true, windowS: harnessS, clock: HARNESS_CLOCK, why: null };
  const why = harnessS === 0
    ? 'the load line and the last prompt row arrived in one read (harness window 0 s)'
    : `the load line was read ${(1e3 * lateS!).toFixed(3)} ms after the engine's first decode token (it arrived with decode output)`;
  if (engine === null) {
    return { ok: false, code: 'NON_POSITIVE_WINDOW', why: `${why}: arrival stamps cannot resolve this window, and the driver writes no events with the engine's own times (recipe driver.eventsArgv)` };
  }
  if (engine.backwards) return { ok: false, code: 'CLOCK_BACKWARDS', why: `${why}, and the engine's event times run backwards (${engine.backwards})` };
  const engineS = engine.windowS;
  if (engineS <= 0) return { ok: false, code: 'NON_POSITIVE_WINDOW', why: `${why}, and the engine's own window (load_end → last token) is ${engineS.toFixed(6)} s` };
  return { ok: true, windowS: engineS, clock: ENGINE_CLOCK, why };
}

// Consecutive tokens of one prompt that share one arrival stamp (several tokens per read or per streamed
// chunk): their gaps are not inter-token times. Counts the zero gaps among all gaps.
export function collapsedGaps(m: ModeEvents): { zero: number; gaps: number } {
  let zero = 0;
  let gaps = 0;
  for (const ts of m.tokenNsByPrompt.values()) {
    for (let i = 1; i < ts.length; i++) {
      gaps += 1;
      if (ts[i] === ts[i - 1]) zero += 1;
    }
  }
  return { zero, gaps };
}

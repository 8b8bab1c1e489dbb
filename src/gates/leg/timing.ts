import type { DriverReport } from '../../profiles/types.js';
import type { Silicon } from '../../silicon/types.js';
import type { TokenJudgement } from '../../results/types.js';
import type { Quantity } from '../../quantity/types.js';
import { perOutputToken } from '../../quantity/perToken.js';
import { refused } from '../../quantity/make.js';
import { formatReason, type Reason } from '../../verdict/reasons.js';
import { isPass } from '../../verdict/words.js';
import type { EngineEvents, ModeEvents } from './events.js';
import type { DecodeWindow } from './window.js';
import { ENGINE_CLOCK, decodeClock, engineTimes } from './clocks.js';
import { interTokenLatency, timeToFirstToken } from './latency.js';
import { ENGINE_TIMER, HARNESS_AFTER_FIRST, engineTimerFigure, harnessAfterFirst, timerRatio } from './engineTimer.js';

// A leg's timing figures, each from the clock that resolves it (clocks.ts): per output token over the decode
// window, the engine-clock figure beside it, per token after the first, time to first token and inter-token
// latency. A void leg, or one whose tokens did not pass, has no speed.

export interface TimingInput {
  mode: string;
  dw: DecodeWindow;
  tokens: TokenJudgement;
  report: DriverReport;
  events: EngineEvents | null;
  // The first reason the leg is void (CONTENDED aside: a contended leg's speed is refused by its busy rule).
  firstVoid: Reason | null;
  silicon: Silicon | null;
}

const SPEED_VOID_CODES = ['TIMEOUT', 'CRASHED', 'REFERENCE_TIER', 'PARTIAL', 'WRONG_TOKENS', 'THROTTLED'] as const;

export function timingQuantities(i: TimingInput): Record<string, Quantity> {
  const { dw, tokens, report, events, mode } = i;
  const q: Record<string, Quantity> = {};
  const m: ModeEvents | undefined = events && !events.missing ? events.modes.get(mode) : undefined;
  const engine = engineTimes(events?.loadEndNs ?? null, m);
  const matchedForSpeed = isPass(tokens.word) ? tokens.compared : tokens.matched;
  const loadS = report.load?.loadS ?? events?.loadS ?? null;
  const voidSpeed = (name: string): Quantity | null => {
    if (!i.firstVoid) return null;
    const code = SPEED_VOID_CODES.find((c) => c === i.firstVoid!.code) ?? 'PARTIAL';
    return refused(name, code, `the leg is void (${formatReason(i.firstVoid)}) — no speed is taken from it`);
  };
  const rate = (name: string, windowS: number | null, clock: { name: string; why: string | null } | undefined, windowMissing?: 'load-line-absent' | 'no-arrival-times'): Quantity =>
    ({ ...perOutputToken({ decodeWindowS: windowS, tokensCompared: tokens.compared, loadS, tokensMatched: matchedForSpeed, ...(windowMissing ? { windowMissing } : {}), ...(clock ? { clock } : {}), silicon: i.silicon }), name });

  // Per output token: the decode window on the clock that resolves it.
  const POT = 'per output token';
  q.perOutputToken = voidSpeed(POT) ?? (() => {
    if (dw.missing && !dw.missing.windowMissing) return refused(POT, dw.missing.code, dw.missing.why);
    if (!dw.window) return rate(POT, null, undefined, dw.missing?.windowMissing);
    const c = decodeClock(dw.window, engine);
    if (!c.ok) return refused(POT, c.code, c.why);
    return rate(POT, c.windowS, { name: c.clock, why: c.why });
  })();
  if (events && !events.missing) {
    const POTE = 'per output token (engine event clock)';
    q.perOutputTokenEngine = voidSpeed(POTE) ?? (() => {
      if (mode === 'fresh-prefill' && dw.missing) return refused(POTE, dw.missing.code, dw.missing.why);
      if (!engine) return rate(POTE, null, undefined, 'load-line-absent');
      if (engine.backwards) return refused(POTE, 'CLOCK_BACKWARDS', `the engine's event times run backwards (${engine.backwards})`);
      return rate(POTE, engine.windowS, { name: ENGINE_CLOCK, why: null });
    })();
  }

  if (m || report.engineTimer.length > 0) {
    const unjudged = i.firstVoid ? `the leg is void (${formatReason(i.firstVoid)})` : !isPass(tokens.word) ? `the tokens did not pass (${tokens.word})` : null;
    const harness = unjudged ? refused(HARNESS_AFTER_FIRST, 'WRONG_TOKENS', `${unjudged} — no speed is taken from it`) : harnessAfterFirst(m, events?.loadEndNs ?? null);
    const timer = unjudged && report.engineTimer.length > 0 ? refused(ENGINE_TIMER, 'WRONG_TOKENS', `${unjudged} — no speed is taken from it`) : engineTimerFigure(report.engineTimer);
    q.perTokenAfterFirst = harness;
    if (timer) q.perTokenAfterFirstEngineTimer = timer;
    const ratio = timerRatio(harness, timer);
    if (ratio) q.harnessOverEngineTimer = ratio;
    if (m && !unjudged) {
      q.timeToFirstToken = timeToFirstToken(m, events?.loadEndNs ?? null);
      q.interTokenLatency = interTokenLatency(m, events?.loadEndNs ?? null, timer);
    }
  }
  return q;
}

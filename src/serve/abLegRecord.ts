import type { ServeLoad } from '../config/serveLoad.js';
import { CRITERION_METRICS, isServeMetric, type CriterionMetric } from '../config/criteria.js';
import type { PlannedLeg } from '../plan/plan.js';
import type { Quantity } from '../quantity/types.js';
import { abLegPoint, type AbLegPoint } from '../report/plots.js';
import type { LegRecord, ProcessSummary, TokenJudgement } from '../results/types.js';
import type { Silicon } from '../silicon/types.js';
import { reason, type Reason } from '../verdict/reasons.js';
import type { TokenWord } from '../verdict/words.js';
import type { ServeTokens, ServeVerdict } from './judge.js';
import { describeShape, type ServePoint } from './record.js';

// One serve load as one leg of an A/B (pure): the load's verdict becomes the leg's token word, its figures the
// leg's quantities. A leg is a pass only when every response matched the golden AND the load was VALID: wrong
// tokens keep serve's DIVERGENCE (the figures already withheld, the requests named); an INVALID load is VOID
// with its validity reasons, so no judge takes a speed from a load that did not meet its limits.

// The leg quantities a serve leg carries: the figures a criterion can judge (src/config/criteria.ts).
export const SERVE_LEG_QUANTITIES: readonly string[] = (Object.keys(CRITERION_METRICS) as CriterionMetric[]).filter(isServeMetric).map((m) => CRITERION_METRICS[m].quantity);

// The load of each leg in words (the plan's text).
export function describeServeLeg(l: ServeLoad): string {
  return `one load (${describeShape(l.shape)}, at least ${l.stop.minRequests} request(s) over at least ${l.stop.minDurationS} s, server slots ${l.slots}) against a server started with the arm's environment; every response token-checked`;
}

// The leg's token word and void reasons from the load's verdict.
export function serveLegWord(v: Pick<ServeVerdict, 'word' | 'reasons'>, tokens: Pick<ServeTokens, 'word'>): { word: TokenWord; reasons: Reason[] } {
  switch (v.word) {
    case 'VALID':
      return { word: tokens.word, reasons: [] };
    // Its own codes (MIN_REQUESTS, UNFINISHED, CLIENT_BEHIND …), not PARTIAL: --resume runs PARTIAL legs again.
    case 'INVALID':
      return { word: 'VOID', reasons: v.reasons.map((r, i) => (i === 0 ? reason(r.code, `INVALID load — ${r.message}`) : r)) };
    case 'DIVERGENCE':
    case 'SHORT':
    case 'VOID':
      return { word: v.word, reasons: v.reasons };
    default:
      return { word: 'VOID', reasons: [reason('NO_TOKENS', `the load ended ${v.word}`), ...v.reasons] };
  }
}

// The responses as the leg's token judgement (one row per request), read by the harness from the streams.
export function serveTokenJudgement(t: ServeTokens, word: TokenWord): TokenJudgement {
  const finished = t.requests.filter((r) => r.finished);
  return {
    source: 'served streams', witness: 'harness', mode: 'serve', prompts: t.requests, compared: t.compared, matched: t.matched,
    fullRows: finished.filter((r) => r.generated >= r.goldenWidth).length, shortRows: t.requests.length - finished.filter((r) => r.generated >= r.goldenWidth).length,
    word, reasons: t.reasons,
  };
}

// The figures a criterion reads, picked from the load's (a figure the load did not give is not invented).
export function serveLegQuantities(figures: Record<string, Quantity>): Record<string, Quantity> {
  return Object.fromEntries(SERVE_LEG_QUANTITIES.filter((k) => figures[k] !== undefined).map((k) => [k, figures[k]!]));
}

export interface ServeLegInput {
  planned: PlannedLeg;
  flagEnv: Record<string, string>;
  binarySha256: string | null;
  process: ProcessSummary;
  logFile: string;
  silicon: Silicon;
  // The load as recorded (null: the server never got ready, and `why` says so).
  point: ServePoint | null;
  tokens: ServeTokens | null;
  verdict: ServeVerdict | null;
  // The server's load (spawn → ready), before the load's window.
  loadS: number | null;
  why: string | null;
}

// The leg record of one serve load, and its point on the A/B's per-leg plot (TPOT p50 of a passing leg).
export function serveLegRecord(i: ServeLegInput): { record: LegRecord; abPoint: AbLegPoint } {
  const judged = i.verdict && i.tokens ? serveLegWord(i.verdict, i.tokens) : { word: 'VOID' as const, reasons: [reason('SERVER_FAILED', i.why ?? 'the server never served the load')] };
  const quantities = i.point ? serveLegQuantities(i.point.figures) : {};
  const record: LegRecord = {
    index: i.planned.index, arm: i.planned.arm, label: i.planned.label, mode: 'serve', flagEnv: i.flagEnv, binarySha256: i.binarySha256,
    process: i.process, logFile: i.logFile, eventsFile: null, samplesFile: null, samplerBackend: null, samplerNote: null,
    loadLine: { seen: i.loadS !== null, tS: null, loadS: i.loadS, source: i.loadS !== null ? 'readiness probe (spawn → ready)' : null },
    decodeWindow: null, engineWindow: null,
    tokens: i.tokens ? serveTokenJudgement(i.tokens, judged.word) : null,
    witness: i.tokens ? 'harness' : null,
    crossCheck: null, referenceTierLines: 0, counters: {}, counterRecords: 0,
    contention: { foreignPids: [], checked: false, note: 'not checked for a serve leg' },
    quantities, verdict: judged.word, voidReasons: judged.reasons, silicon: i.silicon,
    ...(i.point ? { serve: i.point } : {}),
  };
  return { record, abPoint: abLegPoint(record) };
}

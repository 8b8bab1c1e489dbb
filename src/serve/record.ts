import type { Quantity } from '../quantity/types.js';
import type { RequestJudgement } from './judge.js';
import type { ServeAssessment } from './assess.js';
import type { RequestFigures } from './metrics.js';
import type { LoadShape, LoadStop, RequestObservation, Slo, ValidityLimits } from './types.js';
import type { VerdictWord } from '../verdict/words.js';
import type { Reason } from '../verdict/reasons.js';

// What result.json keeps of a serve run (its `serve` field): the load asked for, the server, and per load
// point each request's end, tokens and figures with the point's verdict. The raw stamps and ids of every
// request are in requests.jsonl beside it.

export interface ServeRequestRecord {
  index: number;
  prompt: number;
  end: RequestObservation['end'];
  error: string | null;
  scheduledS: number | null;
  sentS: number | null;
  endS: number | null;
  tokens: number;
  status: RequestJudgement['status'];
  firstMismatch: RequestJudgement['firstMismatch'];
  ttftS: number | null;
  tpotS: number | null;
  e2eS: number | null;
}

export interface ServePoint {
  shape: LoadShape;
  verdict: { word: VerdictWord; reasons: Reason[] };
  clocks: { gaps: string; first: string };
  tokens: { compared: number; matched: number; wrong: number[] };
  valid: boolean;
  window: { startS: number; endS: number } | null;
  figures: Record<string, Quantity>;
  requests: ServeRequestRecord[];
}

export interface ServeRecord {
  stop: LoadStop;
  limits: ValidityLimits;
  slo: Slo | null;
  requestTimeoutS: number;
  maxNewTokens: number;
  slots: number;
  server: { argv: string[]; loadS: number | null; logFile: string; end: string | null };
  points: ServePoint[];
  // A sweep's knee (src/serve/knee.ts); absent for one load.
  knee?: { ratePerS: number | null; why: string };
}

const clockText = (c: ServeAssessment['clocks']['gaps']): string => (c.ok ? `${c.clock}${c.why ? ` (${c.why})` : ''}` : `refused ${c.code}: ${c.why}`);

function requestRecord(r: RequestObservation, j: RequestJudgement | undefined, f: RequestFigures | undefined): ServeRequestRecord {
  return {
    index: r.index, prompt: r.prompt, end: r.end, error: r.error, scheduledS: r.scheduledS, sentS: r.sentS, endS: r.endS, tokens: r.ids.length,
    status: j?.status ?? 'short', firstMismatch: j?.firstMismatch ?? null, ttftS: f?.ttftS ?? null, tpotS: f?.tpotS ?? null, e2eS: f?.e2eS ?? null,
  };
}

// One load point as recorded: the assessment's figures and verdict, each request in one line.
export function servePoint(shape: LoadShape, requests: readonly RequestObservation[], a: ServeAssessment): ServePoint {
  const judged = new Map(a.tokens.requests.map((j) => [j.request, j]));
  const figs = new Map(a.perRequest.map((f) => [f.index, f]));
  return {
    shape,
    verdict: { word: a.verdict.word, reasons: a.verdict.reasons },
    clocks: { gaps: clockText(a.clocks.gaps), first: clockText(a.clocks.first) },
    tokens: { compared: a.tokens.compared, matched: a.tokens.matched, wrong: a.tokens.wrong },
    valid: a.validity.valid,
    window: a.window,
    figures: a.figures,
    requests: requests.map((r) => requestRecord(r, judged.get(r.index), figs.get(r.index))),
  };
}

// The load in words: "concurrency 4" or "Poisson arrivals at 2 requests/s (seed 1)".
export function describeShape(s: LoadShape): string {
  return s.kind === 'concurrency' ? `concurrency ${s.inFlight}` : `Poisson arrivals at ${s.ratePerS} requests/s (seed ${s.seed})`;
}

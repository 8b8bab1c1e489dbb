import type { Golden } from '../config/golden.js';
import type { Quantity } from '../quantity/types.js';
import { latencyFigures, requestFigures, runClocks, type RequestFigures, type RunClocks } from './metrics.js';
import { loadWindow, throughputFigures, type LoadWindow } from './throughput.js';
import { judgeRequests, serveVerdict, withholdFigures, type ServeTokens, type ServeVerdict } from './judge.js';
import { judgeValidity, type ServerAtEnd, type Validity } from './validity.js';
import type { LoadShape, RequestObservation, Slo, ValidityLimits } from './types.js';

// One load, judged (pure): what the client saw → clocks → per-request figures → percentiles and rates →
// every response against the golden → validity → the verdict. The figures of a run with a wrong response are
// refused by name; the send-lateness figures of an open-loop run stay (they judge the client, not the server).

export interface AssessInput {
  golden: Golden;
  requests: readonly RequestObservation[];
  shape: LoadShape;
  slo: Slo | null;
  // The server's load (spawn → ready), outside every window.
  loadS: number | null;
  limits: ValidityLimits;
  server: ServerAtEnd;
}

export interface ServeAssessment {
  figures: Record<string, Quantity>;
  clocks: RunClocks;
  window: LoadWindow | null;
  perRequest: RequestFigures[];
  tokens: ServeTokens;
  validity: Validity;
  verdict: ServeVerdict;
}

export function assessLoad(i: AssessInput): ServeAssessment {
  const sent = i.requests.filter((r) => r.sentS !== null);
  const clocks = runClocks(sent);
  const perRequest = sent.map((r) => requestFigures(r, clocks));
  const window = loadWindow(sent);
  const tokens = judgeRequests(i.golden, sent);
  const validity = judgeValidity({ limits: i.limits, shape: i.shape, requests: sent, window, server: i.server });
  const figures = withholdFigures({ ...latencyFigures(perRequest, clocks), ...throughputFigures(sent, perRequest, i.slo, i.loadS) }, tokens);
  if (validity.lateness) {
    figures.sendLateP99 = validity.lateness.p99;
    figures.sendLateMax = validity.lateness.max;
  }
  return { figures, clocks, window, perRequest, tokens, validity, verdict: serveVerdict(tokens, validity) };
}

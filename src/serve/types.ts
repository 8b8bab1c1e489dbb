// The shapes of a serve run (docs/serve.md): the load asked for, what the client saw of each request, and the
// limits a run is held to. Times are seconds on the harness's monotonic clock, relative to the instant the
// server answered its readiness probe (the load is never inside a window).

// How requests are offered: open-loop arrivals at a rate (Poisson, seeded), or a fixed number in flight.
export type LoadShape =
  | { kind: 'rate'; ratePerS: number; seed: number }
  | { kind: 'concurrency'; inFlight: number };

// When a load stops sending: both minima met (LoadGen's rule: a minimum count and a minimum duration).
export interface LoadStop {
  minRequests: number;
  minDurationS: number;
  // A hard cap on requests, so a fast server and a long duration cannot plan an unbounded run.
  maxRequests: number;
}

// Service-level objectives a request must meet to count toward goodput (seconds; absent: not constrained).
export interface Slo {
  ttftS?: number;
  tpotS?: number;
  e2eS?: number;
}

// How a request ended, as the client saw it.
export type RequestEnd = 'done' | 'timeout' | 'error' | 'not-sent';

// The engine's own timer for one response, where the server reports it (llama-server's `timings`).
export interface EngineTimings {
  promptMs: number | null;
  // Cumulative decode time at each token (ms since the first token), from per-token timings; null where absent.
  tokenMs: Array<number | null>;
  predictedMs: number | null;
  predictedN: number | null;
}

// One request as the client saw it: when it was due and sent, each token's id and arrival stamp, how it ended.
export interface RequestObservation {
  index: number;
  // The golden prompt it carried (prompts are sent in turn: request i carries prompt i mod P).
  prompt: number;
  // Open-loop: when the schedule said to send it; closed-loop (concurrency): null.
  scheduledS: number | null;
  sentS: number | null;
  // Arrival stamp of each token: tokens read in one chunk share its stamp.
  tokenS: number[];
  ids: number[];
  // The moment the response ended (its last event read), or the client gave up on it.
  endS: number | null;
  end: RequestEnd;
  error: string | null;
  engine: EngineTimings | null;
}

// What one serve run was asked to do.
export interface LoadPlan {
  shape: LoadShape;
  stop: LoadStop;
  // Per-request limit: past it the client closes the stream and counts the request as timed out.
  requestTimeoutS: number;
  maxNewTokens: number;
  prompts: number;
}

// Limits a run is held to beyond its stop rule (LoadGen-style validity).
export interface ValidityLimits {
  minRequests: number;
  minDurationS: number;
  // Open-loop only: a send later than this behind its schedule means the client, not the server, set the pace.
  maxLateS: number;
}

// Reading a streamed response (pure: text in, events out; the client stamps each chunk as it arrives).
// Server-sent events: `data: <payload>` lines, an event ended by a blank line. The llama-server protocol puts
// one JSON object per event: the token ids it sampled (`tokens`, with `return_tokens`), `stop` on the last,
// per-token `timings` (with `timings_per_token`: its own decode clock), or `error`.

// Splits a byte stream's text into complete `data:` payloads; a partial line waits for the next chunk.
export class SseSplitter {
  private buf = '';

  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      if (line.startsWith('data:')) out.push(line.slice(5).trimStart());
    }
    return out;
  }

  // What is left unterminated when the stream ends (a truncated event).
  rest(): string {
    return this.buf;
  }
}

// One llama-server event, read: ids, whether it ends the response, the engine's timer, an error.
export interface ServerEvent {
  tokens: number[];
  stop: boolean;
  // Cumulative decode milliseconds at this event (llama-server's predicted_ms), and its prompt time.
  predictedMs: number | null;
  predictedN: number | null;
  promptMs: number | null;
  error: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// A payload of the llama-server protocol; a payload that is not one is an error event, never dropped.
export function readLlamaServerEvent(payload: string): ServerEvent {
  const empty: ServerEvent = { tokens: [], stop: false, predictedMs: null, predictedN: null, promptMs: null, error: null };
  if (payload === '[DONE]') return { ...empty, stop: true };
  let ev: unknown;
  try {
    ev = JSON.parse(payload);
  } catch {
    return { ...empty, error: `an event is not JSON: ${JSON.stringify(payload.slice(0, 80))}` };
  }
  if (typeof ev !== 'object' || ev === null || Array.isArray(ev)) return { ...empty, error: `an event is not a JSON object: ${JSON.stringify(payload.slice(0, 80))}` };
  const o = ev as Record<string, unknown>;
  if (o.error !== undefined) {
    const e = o.error as { message?: unknown } | string;
    return { ...empty, error: `the server answered an error: ${typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : JSON.stringify(e).slice(0, 200)}` };
  }
  const tokens = Array.isArray(o.tokens) ? o.tokens : [];
  if (!tokens.every((t) => Number.isInteger(t))) return { ...empty, error: `an event's tokens are not integer ids: ${JSON.stringify(o.tokens).slice(0, 80)}` };
  const t = (typeof o.timings === 'object' && o.timings !== null ? o.timings : {}) as Record<string, unknown>;
  return { tokens: tokens as number[], stop: o.stop === true, predictedMs: num(t.predicted_ms), predictedN: num(t.predicted_n), promptMs: num(t.prompt_ms), error: null };
}

// One response as it streams in: each chunk's events read and their tokens stamped with the chunk's arrival.
export class ResponseReader {
  readonly ids: number[] = [];
  readonly tokenS: number[] = [];
  readonly tokenMs: Array<number | null> = [];
  promptMs: number | null = null;
  predictedMs: number | null = null;
  predictedN: number | null = null;
  stopped = false;
  error: string | null = null;
  private readonly sse = new SseSplitter();

  // A chunk of the body read at tS: tokens in it share that stamp. Events after an error or the stop are ignored.
  chunk(text: string, tS: number): void {
    for (const payload of this.sse.push(text)) {
      if (this.stopped || this.error !== null) continue;
      const ev = readLlamaServerEvent(payload);
      if (ev.error !== null) {
        this.error = ev.error;
        continue;
      }
      for (const id of ev.tokens) {
        this.ids.push(id);
        this.tokenS.push(tS);
        this.tokenMs.push(ev.predictedMs);
      }
      if (ev.promptMs !== null) this.promptMs = ev.promptMs;
      if (ev.predictedMs !== null) this.predictedMs = ev.predictedMs;
      if (ev.predictedN !== null) this.predictedN = ev.predictedN;
      if (ev.stop) this.stopped = true;
    }
  }

  // The body ended: a response without its stop event was cut short.
  end(): void {
    if (!this.stopped && this.error === null) this.error = `the stream ended before its last event${this.sse.rest().trim() ? ` (an unterminated event: ${JSON.stringify(this.sse.rest().slice(0, 80))})` : ''}`;
  }
}

import { Agent, request as httpRequest } from 'node:http';
import { ResponseReader } from './stream.js';
import type { EngineTimings, RequestEnd } from './types.js';

// The load's HTTP client: one streamed POST per request to the server on 127.0.0.1, every chunk stamped on the
// harness's monotonic clock the moment Node hands it over, so a token's time is its arrival, not the server's
// claim. A request that errs or outlives its limit comes back as data (its end and why), never as a throw.

export interface Target {
  port: number;
  path: string;
}

// What one request saw, on the clock the caller passes (seconds since its origin).
export interface Sent {
  sentS: number;
  tokenS: number[];
  ids: number[];
  endS: number;
  end: Exclude<RequestEnd, 'not-sent'>;
  error: string | null;
  engine: EngineTimings | null;
}

// A fresh connection per request, no socket cap: none waits for another's socket. Not keep-alive: llama-server
// closes a streamed response's connection, and a pooled socket reused after that close fails the next request
// with "socket hang up" (seen on the CPU server at concurrency 2). A loopback connect is in TTFT, as for any client.
export function loadAgent(): Agent {
  return new Agent({ keepAlive: false, maxSockets: Infinity });
}

function engineOf(r: ResponseReader): EngineTimings | null {
  if (r.predictedMs === null && r.promptMs === null) return null;
  return { promptMs: r.promptMs, tokenMs: [...r.tokenMs], predictedMs: r.predictedMs, predictedN: r.predictedN };
}

// Sends one request and reads its stream to the end, the limit, or the abort signal (Ctrl-C, or the run stopping).
export function sendRequest(t: Target, body: unknown, timeoutS: number, nowS: () => number, agent: Agent, signal?: AbortSignal): Promise<Sent> {
  const payload = Buffer.from(JSON.stringify(body));
  const reader = new ResponseReader();
  return new Promise((resolveSent) => {
    let settled = false;
    let sentS = nowS();
    const done = (end: Sent['end'], error: string | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolveSent({ sentS, tokenS: reader.tokenS, ids: reader.ids, endS: nowS(), end, error, engine: engineOf(reader) });
    };
    const req = httpRequest({ host: '127.0.0.1', port: t.port, path: t.path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': payload.length } }, (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (c: string) => { if (text.length < 500) text += c; });
        res.on('end', () => done('error', `the server answered HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
        return;
      }
      res.on('data', (c: string) => reader.chunk(c, nowS()));
      res.on('end', () => {
        reader.end();
        done(reader.error === null ? 'done' : 'error', reader.error);
      });
      res.on('error', (err) => done('error', `the response broke off: ${err.message}`));
    });
    const timer = setTimeout(() => {
      done('timeout', `no end within ${timeoutS} s; the client closed the stream`);
      req.destroy();
    }, timeoutS * 1e3);
    const onAbort = (): void => {
      done('error', 'the run was stopped before this request ended');
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => done('error', `the request failed: ${err.message}`));
    sentS = nowS();
    req.end(payload);
  });
}

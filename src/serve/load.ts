import type { Agent } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestBody } from '../config/serve.js';
import { sendRequest, type Sent, type Target } from './client.js';
import { poissonSchedule, promptFor, stopMet } from './schedule.js';
import type { LoadPlan, RequestObservation } from './types.js';

// Drives one load against a ready server: open-loop arrivals on their schedule (sends never wait for answers),
// or a fixed number in flight (each slot sends its next request when its last one ends). The golden's prompts
// go out in turn. Every request sent is returned, finished or not.

export interface LoadSite {
  target: Target;
  // The golden's prompts by id, as token ids.
  prompts: ReadonlyArray<{ id: number; promptTokens: readonly number[] }>;
  bodyTemplate: Record<string, unknown>;
  agent: Agent;
  // Seconds on the harness's monotonic clock since the run's origin.
  nowS: () => number;
  signal: AbortSignal;
  // Told as each request ends (progress lines).
  onEnd?: (r: RequestObservation) => void;
}

function observe(index: number, prompt: number, scheduledS: number | null, s: Sent): RequestObservation {
  return { index, prompt, scheduledS, sentS: s.sentS, tokenS: s.tokenS, ids: s.ids, endS: s.endS, end: s.end, error: s.error, engine: s.engine };
}

// Sends request `index` now and resolves when it ends.
async function one(plan: LoadPlan, site: LoadSite, index: number, scheduledS: number | null): Promise<RequestObservation> {
  const prompt = promptFor(index, site.prompts.map((p) => p.id));
  const tokens = site.prompts.find((p) => p.id === prompt)!.promptTokens;
  const body = requestBody(site.bodyTemplate, tokens, plan.maxNewTokens);
  const r = observe(index, prompt, scheduledS, await sendRequest(site.target, body, plan.requestTimeoutS, site.nowS, site.agent, site.signal));
  site.onEnd?.(r);
  return r;
}

// Open loop: each send at its scheduled time, whatever the server is doing.
async function openLoop(plan: LoadPlan, site: LoadSite, ratePerS: number, seed: number): Promise<RequestObservation[]> {
  const offsets = poissonSchedule(ratePerS, seed, plan.stop);
  const t0 = site.nowS();
  const inFlight: Array<Promise<RequestObservation>> = [];
  for (const [i, off] of offsets.entries()) {
    const dueS = t0 + off;
    const waitMs = (dueS - site.nowS()) * 1e3;
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: site.signal }).catch(() => undefined);
    if (site.signal.aborted) break;
    inFlight.push(one(plan, site, i, dueS));
  }
  return Promise.all(inFlight);
}

// Closed loop: `inFlight` slots, each sending its next request when the last ends, until the stop rule is met.
async function closedLoop(plan: LoadPlan, site: LoadSite, inFlight: number): Promise<RequestObservation[]> {
  const t0 = site.nowS();
  const out: RequestObservation[] = [];
  let next = 0;
  const slot = async (): Promise<void> => {
    while (!site.signal.aborted && !stopMet(next, site.nowS() - t0, plan.stop)) {
      const index = next;
      next += 1;
      out.push(await one(plan, site, index, null));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, slot));
  return out.sort((a, b) => a.index - b.index);
}

export function runLoad(plan: LoadPlan, site: LoadSite): Promise<RequestObservation[]> {
  return plan.shape.kind === 'rate' ? openLoop(plan, site, plan.shape.ratePerS, plan.shape.seed) : closedLoop(plan, site, plan.shape.inFlight);
}

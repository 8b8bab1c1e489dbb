import type { Quantity } from '../quantity/types.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { censoredPercentile } from './metrics.js';
import { sendLateness } from './schedule.js';
import type { LoadWindow } from './throughput.js';
import type { LoadShape, RequestObservation, ValidityLimits } from './types.js';

// Whether a serve run is a valid performance result (MLPerf LoadGen's idea of a valid run): it lasted at least
// its minimum duration and sent at least its minimum count, every request it sent finished, the open-loop
// schedule was kept (a client that fell behind measured itself, not the server), and the server was still
// alive at the end. Each failure is a reason by name; the figures stay beside it, marked by it.

export interface ServerAtEnd {
  alive: boolean;
  // What the end-of-run check saw when the server was not alive.
  why: string | null;
}

export interface ValidityInput {
  limits: ValidityLimits;
  shape: LoadShape;
  requests: readonly RequestObservation[];
  window: LoadWindow | null;
  server: ServerAtEnd;
}

export interface Validity {
  valid: boolean;
  reasons: Reason[];
  // Open-loop: how late the sends went out against their schedule (p99 and max), else null.
  lateness: { p99: Quantity; max: Quantity; late: number; sends: number } | null;
}

const ms = (s: number): string => `${(s * 1e3).toFixed(1)} ms`;

// The schedule check of an open-loop run: every send at most maxLateS behind its time.
function schedule(requests: readonly RequestObservation[], maxLateS: number): { figures: NonNullable<Validity['lateness']>; reason: Reason | null } {
  const late = sendLateness(requests.map((r) => r.scheduledS), requests.map((r) => r.sentS));
  const terms = { allowed: { value: maxLateS, unit: 's', label: 'allowed' } };
  const p99 = censoredPercentile('send lateness p99', late, 0, 99, terms);
  const max = censoredPercentile('send lateness max', late, 0, 100, terms);
  const behind = late.filter((l) => l > maxLateS);
  const figures = { p99, max, late: behind.length, sends: late.length };
  if (behind.length === 0) return { figures, reason: null };
  const worst = Math.max(...behind);
  return {
    figures,
    reason: reason('CLIENT_BEHIND', `${behind.length} of ${late.length} sends went out more than ${ms(maxLateS)} behind their schedule (worst ${ms(worst)}): the client fell behind the arrival rate, so these figures describe the client, not the server — lower the rate or give the client a quieter host`),
  };
}

export function judgeValidity(i: ValidityInput): Validity {
  const reasons: Reason[] = [];
  const sent = i.requests.filter((r) => r.sentS !== null);
  const spanS = i.window ? i.window.endS - i.window.startS : 0;
  if (spanS < i.limits.minDurationS) reasons.push(reason('MIN_DURATION', `the run lasted ${spanS.toFixed(3)} s (first send → last end), below its minimum of ${i.limits.minDurationS} s`));
  if (sent.length < i.limits.minRequests) reasons.push(reason('MIN_REQUESTS', `${sent.length} request(s) were sent, below the minimum of ${i.limits.minRequests}`));
  const unfinished = sent.filter((r) => r.end !== 'done');
  if (unfinished.length > 0) {
    const by = (e: string): number => unfinished.filter((r) => r.end === e).length;
    const list = unfinished.slice(0, 10).map((r) => r.index).join(', ');
    reasons.push(reason('UNFINISHED', `${unfinished.length} of ${sent.length} request(s) did not finish (${by('timeout')} timed out, ${by('error')} failed): request(s) ${list}${unfinished.length > 10 ? ' …' : ''}`));
  }
  let lateness: Validity['lateness'] = null;
  if (i.shape.kind === 'rate') {
    const s = schedule(i.requests, i.limits.maxLateS);
    lateness = s.figures;
    if (s.reason) reasons.push(s.reason);
  }
  if (!i.server.alive) reasons.push(reason('SERVER_DIED', `the server was not alive at the end of the run: ${i.server.why ?? 'no answer to its health check'}`));
  return { valid: reasons.length === 0, reasons, lateness };
}

import { seededRandom } from '../stats/bootstrap.js';
import type { LoadStop } from './types.js';

// The open-loop arrival schedule: exponential gaps at a rate (a Poisson process), drawn from a seeded PRNG so
// a run's schedule is reproducible from the seed it records. The schedule is planned before the first send
// and kept by the clock, never by the server's answers: a slow server does not slow the arrivals down.

// Send times (seconds from the first send, which is at 0) until the stop rule is met: at least
// minRequests requests and a schedule reaching minDurationS, at most maxRequests.
export function poissonSchedule(ratePerS: number, seed: number, stop: LoadStop): number[] {
  if (!(ratePerS > 0) || !Number.isFinite(ratePerS)) throw new RangeError(`rate ${ratePerS} is not a positive finite number of requests per second`);
  const rand = seededRandom(seed);
  const out: number[] = [];
  let t = 0;
  while (out.length < stop.maxRequests) {
    out.push(t);
    if (stopMet(out.length, t, stop)) break;
    // Inverse-CDF draw of an exponential gap; 1 − u lies in (0, 1], so the log is finite.
    t += -Math.log(1 - rand()) / ratePerS;
  }
  return out;
}

// LoadGen's rule: stop sending once both minima are met (or the cap is reached).
export function stopMet(sent: number, elapsedS: number, stop: LoadStop): boolean {
  if (sent >= stop.maxRequests) return true;
  return sent >= stop.minRequests && elapsedS >= stop.minDurationS;
}

// The golden prompt request i carries: the prompts in turn, so every prompt is served about as often.
export function promptFor(index: number, promptIds: readonly number[]): number {
  return promptIds[index % promptIds.length]!;
}

// How far behind its schedule each open-loop send went out (seconds; ≥ 0 means late).
export function sendLateness(scheduledS: readonly (number | null)[], sentS: readonly (number | null)[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < scheduledS.length; i++) {
    const due = scheduledS[i];
    const sent = sentS[i];
    if (due !== null && due !== undefined && sent !== null && sent !== undefined) out.push(sent - due);
  }
  return out;
}

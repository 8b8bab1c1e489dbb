import type { Quantity, Term } from '../quantity/types.js';
import { isFiniteNumber, measured, refused } from '../quantity/make.js';
import type { RequestFigures } from './metrics.js';
import type { RequestObservation, Slo } from './types.js';
import { describeSlo } from './slo.js';

// Rates over a run's window: from the first send to the last request's end (a timed-out request ends when the
// client gave up on it). The server's load is before the window and never inside it. Request throughput and
// output-token throughput count finished requests; goodput counts those that met every SLO.

export interface LoadWindow {
  startS: number;
  endS: number;
}

// The window of the sent requests, or null when none was sent.
export function loadWindow(requests: readonly RequestObservation[]): LoadWindow | null {
  const sent = requests.filter((r) => r.sentS !== null);
  if (sent.length === 0) return null;
  const startS = Math.min(...sent.map((r) => r.sentS!));
  const endS = Math.max(...sent.map((r) => r.endS ?? r.sentS!));
  return { startS, endS };
}

// The terms every rate shares: the window, what finished and what did not, and the load left out.
function rateTerms(w: LoadWindow, finished: number, unfinished: number, loadS: number | null): Record<string, Term> {
  return {
    windowS: { value: w.endS - w.startS, unit: 's', label: 'window (first send → last end)' },
    finished: { value: finished, unit: 'requests', label: 'finished' },
    unfinished: { value: unfinished, unit: 'requests', label: 'unfinished (counted, not dropped)' },
    loadS: { value: loadS, unit: 's', label: 'server load (before the window, excluded)' },
  };
}

// A rate of `count` over the window, or its refusal.
function rate(name: string, count: number, unit: string, w: LoadWindow | null, terms: (w: LoadWindow) => Record<string, Term>): Quantity {
  if (w === null) return refused(name, 'NO_SAMPLES', 'no request was sent');
  const spanS = w.endS - w.startS;
  if (!isFiniteNumber(spanS)) return refused(name, 'NON_FINITE', `the window is ${spanS} s`);
  if (spanS <= 0) return refused(name, 'NON_POSITIVE_WINDOW', `the window is ${spanS.toFixed(6)} s: its ends do not span a load`);
  return measured(name, 'serveRate', count / spanS, unit, terms(w));
}

// Whether a request met every SLO; null when a constrained figure is unknown for it.
export function metSlo(f: RequestFigures, slo: Slo): boolean | null {
  if (!f.finished) return false;
  const checks: Array<[number | undefined, number | null]> = [[slo.ttftS, f.ttftS], [slo.tpotS, f.tpotS], [slo.e2eS, f.e2eS]];
  for (const [limit, v] of checks) {
    if (limit === undefined) continue;
    if (v === null) return null;
    if (v > limit) return false;
  }
  return true;
}

// Request throughput, output-token throughput and goodput over the window.
export function throughputFigures(requests: readonly RequestObservation[], figs: readonly RequestFigures[], slo: Slo | null, loadS: number | null): Record<string, Quantity> {
  const w = loadWindow(requests);
  const sent = requests.filter((r) => r.sentS !== null);
  const done = sent.filter((r) => r.end === 'done');
  const unfinished = sent.length - done.length;
  const tokens = done.reduce((s, r) => s + r.ids.length, 0);
  const base = (win: LoadWindow): Record<string, Term> => rateTerms(win, done.length, unfinished, loadS);
  const out: Record<string, Quantity> = {
    requestThroughput: rate('request throughput', done.length, 'requests/s', w, base),
    outputTokenThroughput: rate('output token throughput', tokens, 'tokens/s', w, (win) => ({ tokens: { value: tokens, unit: 'tokens', label: 'output tokens of finished requests' }, ...base(win) })),
  };
  const GOODPUT = 'goodput';
  if (slo === null || Object.keys(slo).length === 0) {
    out.goodput = refused(GOODPUT, 'MISSING_TERM', 'no SLO was given: pass --slo ttft=200ms,tpot=50ms (or slo in the gate)');
    return out;
  }
  const verdicts = figs.map((f) => metSlo(f, slo));
  const unknown = verdicts.filter((v) => v === null).length;
  if (unknown > 0) {
    out.goodput = refused(GOODPUT, 'MISSING_TERM', `${unknown} finished request(s) lack a figure the SLO constrains (${describeSlo(slo)}): see that figure's refusal`);
    return out;
  }
  const good = verdicts.filter((v) => v === true).length;
  out.goodput = rate(GOODPUT, good, 'requests/s', w, (win) => ({ good: { value: good, unit: 'requests', label: 'met the SLO' }, slo: { value: describeSlo(slo), label: 'SLO' }, ...base(win) }));
  return out;
}

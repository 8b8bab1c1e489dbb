import type { Quantity } from '../quantity/types.js';
import type { RunResult } from '../results/types.js';
import { VERDICT_CLASS, worstClass } from '../verdict/words.js';
import { reason, type Reason } from '../verdict/reasons.js';
import { findKnee } from './knee.js';
import { describeShape, type ServeRecord } from './record.js';
import type { Knee } from './knee.js';
import type { SweepPlotPoint } from '../report/servePlot.js';

// A serve run's figures and verdict from its load points (pure). One point: its figures and verdict as they
// are. A sweep: every point's figures under its rate ("2rps.ttftP50"), the worst point's verdict with every
// non-valid point named, and the knee.

// A point's label in figure names: "2 req/s", "concurrency 4".
function pointLabel(s: ServeRecord['points'][number]['shape']): string {
  return s.kind === 'rate' ? `${s.ratePerS} req/s` : `concurrency ${s.inFlight}`;
}

export function pointKey(i: number, r: ServeRecord): string {
  const s = r.points[i]!.shape;
  return s.kind === 'rate' ? `${s.ratePerS}rps` : `c${s.inFlight}`;
}

export function sweepOutcome(r: ServeRecord): Pick<RunResult, 'quantities' | 'verdict'> & { knee: Knee | null } {
  if (r.points.length === 1) {
    const p = r.points[0]!;
    return { quantities: p.figures, verdict: { word: p.verdict.word, exitClass: VERDICT_CLASS[p.verdict.word], reasons: p.verdict.reasons }, knee: null };
  }
  const quantities: Record<string, Quantity> = {};
  for (const [i, p] of r.points.entries()) for (const [k, q] of Object.entries(p.figures)) quantities[`${pointKey(i, r)}.${k}`] = { ...q, name: `[${pointLabel(p.shape)}] ${q.name}` };
  const cls = worstClass(r.points.map((p) => VERDICT_CLASS[p.verdict.word]));
  const worst = r.points.find((p) => VERDICT_CLASS[p.verdict.word] === cls)!;
  const reasons: Reason[] = r.points.flatMap((p) => {
    if (p.verdict.word === 'VALID') return [];
    const at = `${describeShape(p.shape)}: ${p.verdict.word}`;
    return p.verdict.reasons.length ? p.verdict.reasons.map((x) => reason(x.code, `${at} — ${x.message}`)) : [reason('LEG_NOT_PASSED', at)];
  });
  const knee = findKnee(r.points.flatMap((p) => (p.shape.kind === 'rate' ? [{ ratePerS: p.shape.ratePerS, valid: p.verdict.word === 'VALID', throughput: p.figures.outputTokenThroughput }] : [])));
  reasons.push(reason('SWEEP_KNEE', `knee: ${knee.ratePerS === null ? 'not found' : `${knee.ratePerS} requests/s`} — ${knee.why}`));
  return { quantities, verdict: { word: worst.verdict.word, exitClass: cls, reasons }, knee };
}

// The sweep's plot points: each rate whose throughput and TTFT p50 were measured, the knee marked.
export function sweepPlotPoints(r: ServeRecord): SweepPlotPoint[] {
  return r.points.flatMap((p) => {
    const t = p.figures.outputTokenThroughput;
    const l = p.figures.ttftP50;
    if (p.shape.kind !== 'rate' || t?.status !== 'measured' || l?.status !== 'measured') return [];
    return [{ ratePerS: p.shape.ratePerS, tokensPerS: t.value, latencyMs: l.value * 1e3, knee: r.knee?.ratePerS === p.shape.ratePerS }];
  });
}

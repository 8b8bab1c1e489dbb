import { join } from 'node:path';
import { formatBare, formatValue, renderQuantity } from '../quantity/render.js';
import type { Quantity } from '../quantity/types.js';
import { isPass } from '../verdict/words.js';
import type { LegRecord, RunResult } from '../results/types.js';
import { armRows, FIGURE_KEYS, FIGURES, legRow, legRows, measuredFigures, type FigureKey, type LegRow } from './rows.js';
import { alignedLines, armGrid, legGrid, refusalTag, unmeasuredLines, verdictCell } from './tables.js';
import { headerLines, slurmLine, verdictLine } from './text.js';
import { sweepGrid, sweepMethodLines, sweepOf } from './sweepTable.js';

// The default text output: one line per leg as it ends, then the leg and arm tables, the run's figures and
// the verdict. Every figure left out here is in --verbose, summary.md, report.html and result.json.

// One figure in a leg's line: rates read as "0.143750 s/token" and "6.96 tokens/s", the rest as "busy 40.00%".
function figureText(k: FigureKey, q: Quantity | null): string | null {
  if (q === null) return null;
  const { title, unit } = FIGURES[k];
  if (q.status !== 'measured') return `${title} ${refusalTag(q)}`;
  return title.includes(unit) ? `${formatBare(q.value, q.unit)} ${title}` : `${title} ${formatValue(q.value, q.unit)}`;
}

// The leg's one line: verdict, tokens (a serve leg's requests), every figure the leg has (refusals by code), wall time.
export function legOneLine(x: LegRow, plannedLegs: number | null): string {
  const parts = [
    x.tokens ? `${x.tokens.matched}/${x.tokens.compared} tokens` : 'tokens not judged',
    x.requests ? `${x.requests.ok}/${x.requests.total} requests finished` : null,
    ...FIGURE_KEYS.map((k) => figureText(k, x.figures[k])),
    `${x.durationS.toFixed(2)} s`,
  ].filter((p): p is string => p !== null);
  return `leg ${x.leg}${plannedLegs ? `/${plannedLegs}` : ''} [${x.label}]: ${verdictCell(x)} — ${parts.join(', ')}`;
}

// The lines under a leg's one line, only where they say something the line does not: the Slurm job, why
// the leg is void, where its tokens first went wrong, an engine that disagrees, held-down clocks, what the
// sampler said on a sampled leg, reference-tier lines, and where the log of a leg that did not pass is.
export function legDetailLines(l: LegRecord): string[] {
  const out: string[] = [];
  if (l.slurm) out.push(`  ${slurmLine(l)}`);
  if (l.clocks?.throttled) out.push(`  ${l.clocks.line}`);
  if (l.samplerNote && l.quantities.busy) out.push(`  busy: ${l.samplerNote}`);
  if (l.referenceTierLines > 0) out.push(`  reference-tier lines: ${l.referenceTierLines}`);
  for (const v of l.voidReasons) out.push(`  void: ${v.code}: ${v.message}`);
  for (const p of l.tokens?.prompts ?? []) {
    if (p.firstMismatch) out.push(`  prompt ${p.prompt}: first mismatch at position ${p.firstMismatch.position} (got ${p.firstMismatch.got}, expected ${p.firstMismatch.exp}; ${p.status})`);
  }
  if (l.crossCheck && !l.crossCheck.agree) out.push(`  engine said ${l.crossCheck.engineWord ?? 'nothing'} (exit ${l.crossCheck.engineExit ?? '?'}): DISAGREES — ${l.crossCheck.explanation}`);
  if (!isPass(l.verdict)) out.push(`  log: ${l.logFile}`);
  return out;
}

// A leg as the default output prints it when it ends.
export function legCompactLines(l: LegRecord, r: RunResult): string[] {
  return [legOneLine(legRow(l, r.plan?.warmupLegs ?? 0), r.plan?.legs ?? null), ...legDetailLines(l)];
}

// What follows the legs: the tables (a leg table from two legs on, an arm table for an A/B), figures no
// leg measured, CPU contention, the run's own figures and notes, the verdict line and where the files are.
export function tailLines(r: RunResult): string[] {
  const out: string[] = [];
  const rows = legRows(r);
  if (rows.length >= 2) out.push('', ...alignedLines(legGrid(rows)));
  const arms = armRows(rows);
  if (arms.length > 0) out.push('', ...alignedLines(armGrid(arms, measuredFigures(rows))));
  const sweep = sweepOf(r);
  if (sweep) out.push('', ...alignedLines(sweepGrid(sweep)), ...sweepMethodLines(sweep));
  out.push(...unmeasuredLines(rows));
  const contended = r.legs.filter((l) => l.contention.cpu).length;
  if (contended > 0) out.push(`CPU contended: ${contended} of ${r.legs.length} leg(s) ran while other processes used more than half the host's CPU (each leg's sentence: --verbose or summary.md)`);
  if (out.length > 0) out.push('');
  for (const q of Object.values(r.quantities)) out.push(renderQuantity(q));
  out.push(...r.notes);
  out.push(verdictLine(r), `run directory: ${r.runDir}`, `report: ${join(r.runDir, 'report.html')}`);
  return out;
}

// The whole run in the default form, for a run printed at once (busy, or a run that ended before its legs).
export function compactRunLines(r: RunResult): string[] {
  return [...headerLines(r, false), ...r.legs.flatMap((l) => legCompactLines(l, r)), ...tailLines(r)];
}

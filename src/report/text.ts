import { formatReason } from '../verdict/reasons.js';
import { isPass } from '../verdict/words.js';
import { verdictLine as recordLine } from '../verdict/record.js';
import { runWitness, witnessedWord } from '../verdict/witness.js';
import { renderQuantity } from '../quantity/render.js';
import { tokensPerSecond } from '../quantity/perToken.js';
import type { LegRecord, RunResult } from '../results/types.js';

// A leg's Slurm job and the silicon it ran on, as one line.
export function slurmLine(leg: LegRecord): string {
  const j = leg.slurm!;
  const s = leg.silicon;
  const on = s ? (s.kind === 'gpu' ? `${s.gpuName} (cc ${s.computeCapability})` : `no GPU (CPU ${s.cpuModel})`) : 'silicon not recorded';
  return `slurm: job ${j.jobId ?? 'not submitted'}${j.stepId ? ` step ${j.stepId}` : ''}${j.node ? ` on ${j.node}` : ''} ${j.state ?? 'state unknown'}${j.reason ? ` (${j.reason})` : ''}${j.source ? ` [${j.source}]` : ''}; silicon ${on}`;
}

// The lines a human reads for one leg: how it ended, its tokens, the cross-check and its numbers.
export function legLines(leg: LegRecord): string[] {
  const out: string[] = [];
  const t = leg.tokens;
  const tok = t ? `tokens ${t.matched}/${t.compared} over ${t.prompts.length} prompt(s) (full rows=${t.fullRows}, short rows=${t.shortRows}, mode=${t.mode}, from ${t.source})` : 'tokens not judged';
  out.push(`leg ${leg.index + 1} [${leg.label}]: ${leg.process.end}; ${tok} → ${witnessedWord(leg.verdict, leg.witness)}`);
  if (leg.slurm) out.push(`  ${slurmLine(leg)}`);
  if (t) {
    for (const p of t.prompts) {
      if (!p.firstMismatch) continue;
      out.push(`  prompt ${p.prompt}: first mismatch at position ${p.firstMismatch.position} (${p.status}${p.firstMismatch.marginNats !== null ? `, golden top-2 margin ${p.firstMismatch.marginNats.toFixed(4)} nats` : ''})`);
      if (p.got) out.push(`    got: ${p.got.join(' ')}`);
      out.push(`    exp: ${p.exp.join(' ')}`);
    }
    for (const r of t.reasons) out.push(`  ${formatReason(r)}`);
  }
  if (leg.crossCheck) out.push(`  engine said ${leg.crossCheck.engineWord ?? 'nothing'} (exit ${leg.crossCheck.engineExit ?? '?'}): ${leg.crossCheck.agree ? 'agrees with the harness' : `DISAGREES — ${leg.crossCheck.explanation}`}`);
  if (leg.referenceTierLines > 0) out.push(`  reference-tier lines: ${leg.referenceTierLines}`);
  const c = leg.process.contained;
  if (c && c.killed.length > 0) out.push(`  contained: killed ${c.killed.length} process(es) the leg left behind: ${c.killed.map((k) => `pid ${k.pid} ${k.comm ?? '?'} (${k.how}, ${k.signal}${k.survived ? ', still alive' : ''})`).join(', ')} [${c.mechanisms}]`);
  if (c?.pipesHeld) out.push(`  contained: the output pipes were still held open after the sweep; nh-gate stopped reading them [${c.mechanisms}]`);
  for (const [key, q] of Object.entries(leg.quantities)) {
    out.push(`  ${renderQuantity(q)}`);
    // Tokens per second beside the per-token figure it is derived from (the same terms, divided the other way).
    if (key === 'perOutputToken') out.push(`  ${renderQuantity(tokensPerSecond(q))}`);
  }
  if (leg.clocks) out.push(`  ${leg.clocks.line}`);
  if (leg.samplerNote) out.push(`  busy: ${leg.samplerNote}`);
  if (leg.contention.cpu) out.push(`  ${leg.contention.cpu}`);
  for (const v of leg.voidReasons) out.push(`  void: ${formatReason(v)}`);
  if (!isPass(leg.verdict) && leg.process.lastLines.length > 0 && leg.process.end !== 'exit 0') {
    out.push('  last lines:');
    for (const l of leg.process.lastLines) out.push(`    | ${l}`);
  }
  return out;
}

// What a run says before its legs: what ran, on what silicon, the build, and the plan (its first line
// unless full: the legs are listed as they end).
export function headerLines(r: RunResult, full: boolean): string[] {
  const out: string[] = [];
  out.push(`nh-gate ${r.command}${r.gate ? ` — gate ${r.gate.name} (sha256 ${r.gate.sha256.slice(0, 12)}…)` : ''}${r.recipe ? ` — recipe ${r.recipe.name}` : ''}${r.golden ? ` — golden ${r.golden.name}` : ''} — arch ${r.arch}`);
  if (r.silicon) out.push(`silicon: ${r.silicon.kind === 'gpu' ? `${r.silicon.gpuName} (${r.silicon.smArch ?? '?'}, ${r.silicon.uuid ?? 'no uuid'})` : 'no GPU'}; CPU ${r.silicon.cpuModel}; via ${r.silicon.source}`);
  if (r.build) {
    const shas = r.build.outputs.map((o) => `${o.path.split('/').pop()} ${o.sha256 ? o.sha256.slice(0, 12) + '…' : 'MISSING'}`).join(', ');
    out.push(`build: ${r.build.verdict}${r.build.message ? ` — ${r.build.message}` : ''}; compile errors ${r.build.compileErrors}, ENOSPC ${r.build.enospcHits}${shas ? `; ${shas}` : ''}`);
  }
  if (r.plan) out.push(...(full ? [r.plan.text] : r.plan.text.split('\n').slice(0, 1)));
  return out;
}

// The run verdict's reasons as text: the one place every report reads them (text, summary, html, exports).
export function verdictReasons(r: RunResult): string[] {
  return r.verdict.reasons.map(formatReason);
}

// The last word of every run's text output (CI greps for it alone on a line: `STRICT PASS`).
export function verdictLine(r: RunResult): string {
  return recordLine({ ...r.verdict, witness: r.verdict.witness ?? runWitness(r.legs) });
}

// The whole run as text, every leg in full (--verbose): header, build, legs, run-level figures, verdict.
export function runLines(r: RunResult): string[] {
  const out: string[] = [...headerLines(r, true)];
  for (const leg of r.legs) out.push(...legLines(leg));
  for (const q of Object.values(r.quantities)) out.push(renderQuantity(q));
  for (const n of r.notes) out.push(n);
  out.push(verdictLine(r));
  out.push(`run directory: ${r.runDir}`);
  return out;
}

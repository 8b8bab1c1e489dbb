import { formatReason } from '../verdict/reasons.js';
import { isPass } from '../verdict/words.js';
import { verdictLine } from '../verdict/record.js';
import { renderQuantity } from '../quantity/render.js';
import type { LegRecord, RunResult } from '../results/types.js';

// The lines a human reads for one leg: how it ended, its tokens, the cross-check and its numbers.
export function legLines(leg: LegRecord): string[] {
  const out: string[] = [];
  const t = leg.tokens;
  const tok = t ? `tokens ${t.matched}/${t.compared} over ${t.prompts.length} prompt(s) (full rows=${t.fullRows}, short rows=${t.shortRows}, mode=${t.mode}, from ${t.source})` : 'tokens not judged';
  out.push(`leg ${leg.index + 1} [${leg.label}]: ${leg.process.end}; ${tok} → ${leg.verdict}`);
  if (leg.slurm) {
    const s = leg.silicon;
    const on = s ? (s.kind === 'gpu' ? `${s.gpuName} (cc ${s.computeCapability})` : `no GPU (CPU ${s.cpuModel})`) : 'silicon not recorded';
    out.push(`  slurm: job ${leg.slurm.jobId ?? 'not submitted'}${leg.slurm.stepId ? ` step ${leg.slurm.stepId}` : ''}${leg.slurm.node ? ` on ${leg.slurm.node}` : ''} ${leg.slurm.state ?? 'state unknown'}${leg.slurm.reason ? ` (${leg.slurm.reason})` : ''}${leg.slurm.source ? ` [${leg.slurm.source}]` : ''}; silicon ${on}`);
  }
  if (t) {
    for (const p of t.prompts) {
      if (!p.firstMismatch) continue;
      out.push(`  prompt ${p.prompt}: first mismatch at position ${p.firstMismatch.position} (${p.status}${p.firstMismatch.marginNats !== null ? `, golden top-2 margin ${p.firstMismatch.marginNats.toFixed(4)} nats` : ''})`);
      if (p.got) out.push(`    got: ${p.got.join(' ')}`);
      out.push(`    exp: ${p.exp.join(' ')}`);
    }
    for (const r of t.reasons) out.push(`  ${r}`);
  }
  if (leg.crossCheck) out.push(`  engine said ${leg.crossCheck.engineWord ?? 'nothing'} (exit ${leg.crossCheck.engineExit ?? '?'}): ${leg.crossCheck.agree ? 'agrees with the harness' : `DISAGREES — ${leg.crossCheck.explanation}`}`);
  if (leg.referenceTierLines > 0) out.push(`  reference-tier lines: ${leg.referenceTierLines}`);
  for (const q of Object.values(leg.quantities)) out.push(`  ${renderQuantity(q)}`);
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

// The whole run as text: header, build, legs, run-level figures, verdict, where the files are.
export function runLines(r: RunResult): string[] {
  const out: string[] = [];
  out.push(`nh-gate ${r.command}${r.gate ? ` — gate ${r.gate.name} (sha256 ${r.gate.sha256.slice(0, 12)}…)` : ''}${r.recipe ? ` — recipe ${r.recipe.name}` : ''}${r.golden ? ` — golden ${r.golden.name}` : ''} — arch ${r.arch}`);
  if (r.silicon) out.push(`silicon: ${r.silicon.kind === 'gpu' ? `${r.silicon.gpuName} (${r.silicon.smArch ?? '?'}, ${r.silicon.uuid ?? 'no uuid'})` : 'no GPU'}; CPU ${r.silicon.cpuModel}; via ${r.silicon.source}`);
  if (r.build) {
    const shas = r.build.outputs.map((o) => `${o.path.split('/').pop()} ${o.sha256 ? o.sha256.slice(0, 12) + '…' : 'MISSING'}`).join(', ');
    out.push(`build: ${r.build.verdict}${r.build.message ? ` — ${r.build.message}` : ''}; compile errors ${r.build.compileErrors}, ENOSPC ${r.build.enospcHits}${shas ? `; ${shas}` : ''}`);
  }
  if (r.plan) out.push(r.plan.text);
  for (const leg of r.legs) out.push(...legLines(leg));
  for (const q of Object.values(r.quantities)) out.push(renderQuantity(q));
  for (const n of r.notes) out.push(n);
  out.push(verdictLine(r.verdict));
  out.push(`run directory: ${r.runDir}`);
  return out;
}

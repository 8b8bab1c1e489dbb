import { renderQuantity } from '../quantity/render.js';
import type { RunResult } from '../results/types.js';
import { legLines, verdictReasons } from './text.js';
import { armRows, legRows, measuredFigures } from './rows.js';
import { sweepGrid, sweepMethodLines, sweepOf } from './sweepTable.js';
import { armGrid, legGrid, markdownLines, unmeasuredLines } from './tables.js';
import { runWitness, witnessedWord } from '../verdict/witness.js';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

// summary.md (also what goes to $GITHUB_STEP_SUMMARY): the verdict first, then legs, figures and files.
export function renderSummaryMd(r: RunResult, plots: string[]): string {
  const out: string[] = [];
  out.push(`## nh-gate ${r.command}: ${witnessedWord(r.verdict.word, runWitness(r.legs))}${r.status !== 'complete' ? ` (${r.status})` : ''}`);
  out.push('');
  if (r.verdict.claim) out.push(`claim decided: ${cell(r.verdict.claim)}`, '');
  const why = verdictReasons(r);
  if (why.length) out.push(...why.map((x) => `- ${cell(x)}`), '');
  out.push('| | |', '|---|---|');
  if (r.recipe) out.push(`| recipe | ${r.recipe.name} |`);
  if (r.golden) out.push(`| golden | ${r.golden.name} (revision ${r.golden.revision.slice(0, 16)}) |`);
  if (r.gate) out.push(`| gate | ${r.gate.name} — sha256 \`${r.gate.sha256}\` |`);
  out.push(`| arch | ${r.arch} |`);
  if (r.silicon) out.push(`| silicon | ${r.silicon.kind === 'gpu' ? cell(`${r.silicon.gpuName} ${r.silicon.smArch ?? ''}`) : 'no GPU'} — ${cell(r.silicon.cpuModel)} |`);
  if (r.build) out.push(`| build | ${r.build.verdict}: ${cell(r.build.message)}; compile errors ${r.build.compileErrors}; ENOSPC ${r.build.enospcHits} |`);
  out.push(`| started | ${r.startedAt} |`, '');
  if (r.legs.length) {
    // The compact leg table (figures measured in at least one leg, time, verdict), with how each leg ended and its binary.
    const rows = legRows(r);
    const g = legGrid(rows);
    g.head.push('end', 'binary');
    g.right.push(false, false);
    g.rows.forEach((row, i) => row.push(r.legs[i]!.process.end, `\`${r.legs[i]!.binarySha256?.slice(0, 12) ?? '?'}\``));
    out.push(...markdownLines(g), '');
    const unmeasured = unmeasuredLines(rows);
    if (unmeasured.length) out.push(...unmeasured.map((x) => `- ${cell(x)}`), '');
    const arms = armRows(rows);
    if (arms.length) out.push('### Arms', '', ...markdownLines(armGrid(arms, measuredFigures(rows))), '');
    const sweep = sweepOf(r);
    if (sweep) out.push('### Sweep', '', ...markdownLines(sweepGrid(sweep)), '', ...sweepMethodLines(sweep).map((x) => `- ${cell(x)}`), '');
  }
  const figures = Object.values(r.quantities);
  if (figures.length) {
    out.push('### Figures', '');
    for (const q of figures) out.push(`- ${cell(renderQuantity(q))}`);
    out.push('');
  }
  out.push('### Legs', '', '```');
  for (const l of r.legs) out.push(...legLines(l));
  out.push('```', '');
  if (r.notes.length) out.push(...r.notes.map((n) => `> ${cell(n)}`), '');
  if (plots.length) out.push('### Plots', '', ...plots.map((p) => `- [${p}](${p})`), '');
  return out.join('\n');
}

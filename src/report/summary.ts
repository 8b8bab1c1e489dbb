import { renderQuantity } from '../quantity/render.js';
import type { RunResult } from '../results/types.js';
import { legLines } from './text.js';
import { formatReason } from '../verdict/reasons.js';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

// summary.md (also what goes to $GITHUB_STEP_SUMMARY): the verdict first, then legs, figures and files.
export function renderSummaryMd(r: RunResult, plots: string[]): string {
  const out: string[] = [];
  out.push(`## nh-gate ${r.command}: ${r.verdict.word}${r.status !== 'complete' ? ` (${r.status})` : ''}`);
  out.push('');
  if (r.verdict.claim) out.push(`claim decided: ${cell(r.verdict.claim)}`, '');
  if (r.verdict.reasons.length) out.push(...r.verdict.reasons.map((x) => `- ${cell(formatReason(x))}`), '');
  out.push('| | |', '|---|---|');
  if (r.recipe) out.push(`| recipe | ${r.recipe.name} |`);
  if (r.golden) out.push(`| golden | ${r.golden.name} (revision ${r.golden.revision.slice(0, 16)}) |`);
  if (r.gate) out.push(`| gate | ${r.gate.name} — sha256 \`${r.gate.sha256}\` |`);
  out.push(`| arch | ${r.arch} |`);
  if (r.silicon) out.push(`| silicon | ${r.silicon.kind === 'gpu' ? cell(`${r.silicon.gpuName} ${r.silicon.smArch ?? ''}`) : 'no GPU'} — ${cell(r.silicon.cpuModel)} |`);
  if (r.build) out.push(`| build | ${r.build.verdict}: ${cell(r.build.message)}; compile errors ${r.build.compileErrors}; ENOSPC ${r.build.enospcHits} |`);
  out.push(`| started | ${r.startedAt} |`, '');
  if (r.legs.length) {
    out.push('| leg | arm | end | tokens | verdict | binary |', '|---|---|---|---|---|---|');
    for (const l of r.legs) {
      const tok = l.tokens ? `${l.tokens.matched}/${l.tokens.compared}` : '—';
      out.push(`| ${l.index + 1} | ${cell(l.label)} | ${cell(l.process.end)} | ${tok} | ${l.verdict} | \`${l.binarySha256?.slice(0, 12) ?? '?'}\` |`);
    }
    out.push('');
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

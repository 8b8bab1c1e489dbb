import { escapeXml } from '../../io/xml.js';
import type { MutantResult } from '../types.js';
import { strykerStatus } from './stryker.js';
import { verdictText } from './table.js';

const esc = escapeXml;

// A self-contained static HTML report. mutation-testing-elements' own HTML loads its web component
// from a CDN, and a CI artifact is often read with no network; this page needs none. The JSON beside it
// (mutation-report.json) is in that schema, for any Stryker viewer.
export function toHtml(rows: MutantResult[], title: string, facts: string[]): string {
  const colour: Record<string, string> = { Killed: '#c8f7c5', Survived: '#f7c5c5', CompileError: '#eeeeee', Timeout: '#f7e7c5', RuntimeError: '#f7e7c5', Ignored: '#eeeeee' };
  const body = rows.map((r) => {
    const st = strykerStatus(r);
    const cells = [
      r.id, r.mutation.file + (r.span ? `:${r.span.start.line}:${r.span.start.column}` : ''), r.compileExit ?? '-', r.errorCount ?? '-',
      r.binarySha ? r.binarySha.slice(0, 16) : '-', r.suite?.counts ? `${r.suite.counts.cases.failed}/${r.suite.counts.cases.total} failed` : '-',
      r.detail, verdictText(r), st,
    ].map((c) => `<td>${esc(String(c))}</td>`).join('');
    const diff = `<tr class="diff"><td colspan="9"><details><summary>${esc(r.mutation.why)}</summary><pre>- ${esc(r.mutation.anchor)}\n+ ${esc(r.mutation.replacement)}</pre></details></td></tr>`;
    return `<tr style="background:${colour[st] ?? '#fff'}">${cells}</tr>${diff}`;
  }).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3em .6em;font-size:.9em;vertical-align:top}pre{margin:0}tr.diff td{border-top:none}</style>
</head><body>
<h1>${esc(title)}</h1>
<ul>${facts.map((f) => `<li>${esc(f)}</li>`).join('')}</ul>
<table><thead><tr><th>id</th><th>where</th><th>compile exit</th><th>errors</th><th>binary sha16</th><th>cases</th><th>status</th><th>verdict</th><th>Stryker status</th></tr></thead>
<tbody>
${body}
</tbody></table>
</body></html>
`;
}

import { escapeXml as esc } from '../io/xml.js';
import { renderQuantity } from '../quantity/render.js';
import type { Quantity } from '../quantity/types.js';
import type { RunResult } from '../results/types.js';
import { armRows, FIGURES, legRows, measuredFigures, type LegRow } from './rows.js';
import { armGrid, figureCell, legGrid, unmeasuredLines, verdictCell } from './tables.js';
import { sweepGrid, sweepMethodLines, sweepOf } from './sweepTable.js';
import type { SweepRecord } from '../results/comparison.js';
import { headerLines, legLines, verdictLine, verdictReasons } from './text.js';

// report.html: one self-contained page per run (no script, no request: styles and SVG plots inline) that a
// browser opens from the run directory. The verdict first, then the leg and arm tables, every figure with
// its terms on hover and each leg's full block in a details row, the run's figures, notes and plots.

export interface InlinePlot {
  file: string;
  svg: string;
}

// The verdict badge's colour per exit class: a pass green, a failure red, anything not judged amber.
export const VERDICT_COLOURS = { passed: '#1a7f37', failed: '#cf222e', void: '#9a6700' } as const;

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#1b1f24;padding:0 16px}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:28px 0 8px}
.verdict{display:inline-block;font-size:22px;font-weight:700;padding:6px 14px;border-radius:6px;margin:8px 0;color:#fff}
.passed{background:${VERDICT_COLOURS.passed}}.failed{background:${VERDICT_COLOURS.failed}}.void,.short,.usage,.internal{background:${VERDICT_COLOURS.void}}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}td[title]{cursor:help;text-decoration:underline dotted #8c959f}
tr.details td{background:#fafbfc;border-top:none}pre{margin:0;font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap}
ul{padding-left:20px}.plot{margin:12px 0;overflow-x:auto}.muted{color:#57606a}
`;

function row(cells: string[]): string {
  return `<tr>${cells.join('')}</tr>`;
}

// A figure cell: the number, its full rendering (terms, refusal reason) on hover.
function figureTd(q: Quantity | null): string {
  return q === null ? '<td class="n">—</td>' : `<td class="n" title="${esc(renderQuantity(q))}">${esc(figureCell(q))}</td>`;
}

function legTable(r: RunResult, rows: LegRow[]): string {
  const g = legGrid(rows);
  const figs = measuredFigures(rows);
  const body = rows.map((x, i) => {
    const tokens = x.tokens ? `${x.tokens.matched}/${x.tokens.compared}` : '—';
    const cells = [`<td class="n">${x.leg}</td>`, `<td>${esc(x.arm === 'single' ? x.mode : x.arm)}</td>`, `<td class="n">${esc(tokens)}</td>`,
      ...figs.map((k) => figureTd(x.figures[k])), `<td class="n">${x.durationS.toFixed(2)}</td>`, `<td>${esc(verdictCell(x))}</td>`];
    const block = legLines(r.legs[i]!).join('\n');
    return row(cells) + `<tr class="details"><td colspan="${g.head.length}"><details><summary>leg ${x.leg} ${esc(x.label)}: every figure with its terms</summary><pre>${esc(block)}</pre></details></td></tr>`;
  });
  return `<table id="legs"><thead>${row(g.head.map((h) => `<th>${esc(h)}</th>`))}</thead><tbody>${body.join('')}</tbody></table>`;
}

function armTable(rows: LegRow[]): string {
  const arms = armRows(rows);
  if (arms.length === 0) return '';
  const figs = measuredFigures(rows);
  const g = armGrid(arms, figs);
  // The grid lists figures × arms in this order; each row's hover names the legs and values it summarizes.
  const sources = figs.flatMap((k) => arms.map((a) => {
    const vals = rows.filter((x) => x.arm === a.arm && !x.warmup).map((x) => `leg ${x.leg}: ${figureCell(x.figures[k])}`);
    return `${FIGURES[k].title} of arm ${a.arm} over ${vals.join(', ')}`;
  }));
  const body = g.rows.map((cells, i) => `<tr title="${esc(sources[i] ?? '')}">${cells.map((c, j) => `<td${g.right[j] ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`);
  return `<h2>Arms</h2><table id="arms"><thead>${row(g.head.map((h) => `<th>${esc(h)}</th>`))}</thead><tbody>${body.join('')}</tbody></table>`;
}

// A sweep's per-arm table, with the design and the correction stated under it.
function sweepTable(s: SweepRecord): string {
  const g = sweepGrid(s);
  const body = g.rows.map((cells) => `<tr>${cells.map((c, j) => `<td${g.right[j] ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`);
  return `<h2>Sweep</h2><table id="sweep"><thead>${row(g.head.map((h) => `<th>${esc(h)}</th>`))}</thead><tbody>${body.join('')}</tbody></table>${list(sweepMethodLines(s), 'muted')}`;
}

function list(items: string[], cls = ''): string {
  return items.length ? `<ul${cls ? ` class="${cls}"` : ''}>${items.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '';
}

// The page, from the result and the SVGs saveRun rendered; plain data in, one string out.
export function renderHtml(r: RunResult, plots: readonly InlinePlot[]): string {
  const rows = legRows(r);
  const title = `nh-gate ${r.command}${r.gate ? ` ${r.gate.name}` : ''}: ${r.verdict.word}`;
  const parts = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`,
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(headerLines(r, false)[0]!)}</h1>`,
    `<div id="verdict" class="verdict ${esc(r.verdict.exitClass)}">${esc(r.verdict.word)}${r.status !== 'complete' ? ` (${esc(r.status)})` : ''}</div>`,
    list(verdictReasons(r)),
    `<p class="muted">${esc(headerLines(r, false).slice(1).join(' · '))} · started ${esc(r.startedAt)}</p>`,
  ];
  if (rows.length) parts.push('<h2>Legs</h2>', legTable(r, rows), list(unmeasuredLines(rows), 'muted'), armTable(rows));
  const sweep = sweepOf(r);
  if (sweep) parts.push(sweepTable(sweep));
  const figures = Object.values(r.quantities).map(renderQuantity);
  if (figures.length) parts.push('<h2>Figures</h2>', list(figures));
  if (r.notes.length) parts.push('<h2>Notes</h2>', list(r.notes));
  if (plots.length) parts.push('<h2>Plots</h2>', ...plots.map((p) => `<figure class="plot" id="${esc(p.file)}">${p.svg}<figcaption class="muted">${esc(p.file)}</figcaption></figure>`));
  parts.push('<h2>Files</h2>', `<p class="muted">${['result.json', 'summary.md', 'junit.xml', ...(r.build?.logFile ? [r.build.logFile] : []), ...r.legs.map((l) => l.logFile)].map((f) => `<a href="${esc(f)}">${esc(f)}</a>`).join(' · ')}</p>`);
  parts.push(`<p class="muted">${esc(verdictLine(r))}</p></body></html>\n`);
  return parts.join('\n');
}

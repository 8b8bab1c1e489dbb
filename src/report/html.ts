import { escapeXml as esc } from '../io/xml.js';
import { renderQuantity } from '../quantity/render.js';
import type { Quantity } from '../quantity/types.js';
import type { RunResult } from '../results/types.js';
import { armRows, FIGURES, legRows, measuredFigures, type LegRow } from './rows.js';
import { armGrid, figureCell, legGrid, unmeasuredLines } from './tables.js';
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

// A grid cell: a figure's cell carries the figure's full rendering on hover.
function td(text: string, right: boolean, q?: Quantity | null): string {
  const cls = right ? ' class="n"' : '';
  return q ? `<td${cls} title="${esc(renderQuantity(q))}">${esc(text)}</td>` : `<td${cls}>${esc(text)}</td>`;
}

function legTable(r: RunResult, rows: LegRow[]): string {
  const g = legGrid(rows);
  const body = rows.map((x, i) => {
    const cells = g.rows[i]!.map((c, j) => {
      const k = g.figureCols?.[j] ?? null;
      return td(c, g.right[j]!, k ? x.figures[k] : null);
    });
    const block = legLines(r.legs[i]!).join('\n');
    return row(cells) + `<tr class="details"><td colspan="${g.head.length}"><details><summary>leg ${x.leg} ${esc(x.label)}: every figure with its terms</summary><pre>${esc(block)}</pre></details></td></tr>`;
  });
  return `<table id="legs"><thead>${row(g.head.map((h) => `<th>${esc(h)}</th>`))}</thead><tbody>${body.join('')}</tbody></table>`;
}

function armTable(rows: LegRow[]): string {
  const arms = armRows(rows);
  if (arms.length === 0) return '';
  const g = armGrid(arms, measuredFigures(rows));
  // Each row's hover names the legs and values it summarizes.
  const source = (i: number): string => {
    const at = g.figureRows?.[i];
    if (!at) return '';
    const mine = rows.filter((x) => x.arm === at.arm && !x.warmup);
    const k = at.key;
    if (k === null) return `requests of arm ${at.arm}, finished of sent: ${mine.map((x) => `leg ${x.leg}: ${x.requests ? `${x.requests.ok}/${x.requests.total}` : '—'}`).join(', ')}`;
    return `${FIGURES[k].title} of arm ${at.arm} over ${mine.map((x) => `leg ${x.leg}: ${figureCell(x.figures[k])}`).join(', ')}`;
  };
  const body = g.rows.map((cells, i) => `<tr title="${esc(source(i))}">${cells.map((c, j) => td(c, g.right[j]!)).join('')}</tr>`);
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

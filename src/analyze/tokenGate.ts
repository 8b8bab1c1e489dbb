import { VERDICT_CLASS, worstClass, type ExitClass } from '../verdict/words.js';
import type { DriverReport, TokenMatchBlock } from '../profiles/types.js';

// What nh-gate concludes from the engine's token lines, beside what the engine itself said.
export interface TokenGate {
  blocks: TokenMatchBlock[];
  engineVerdicts: string[]; // as printed: "STRICT PASS", "REFUSING: no golden"
  judged: 'STRICT PASS' | 'DIVERGENCE' | 'SHORT' | 'REFUSED' | 'NOT MEASURED';
  why: string;
  // Each way the engine's verdict or block line disagrees with its own counters.
  disagreements: string[];
  exitClass: ExitClass;
}

function fromCounters(blocks: TokenMatchBlock[], openRows: number): { judged: TokenGate['judged']; why: string } {
  if (blocks.length === 0) {
    return {
      judged: 'NOT MEASURED',
      why: openRows > 0
        ? `no TOKEN MATCH line, only ${openRows} prompt row(s): the log was cut before the engine's summary, or the engine prints none (an engine judged by ids needs the leg log's golden, or its events)`
        : 'no TOKEN MATCH line: the run compared nothing (a load-only, golden-info or golden-less run is not a pass)',
    };
  }
  const zero = blocks.find((b) => b.compared === 0);
  if (zero) return { judged: 'REFUSED', why: `block ${zero.index}${zero.mode ? ` (mode=${zero.mode})` : ''} compared 0 tokens` };
  const wrong = blocks.find((b) => b.matched < b.compared);
  if (wrong) return { judged: 'DIVERGENCE', why: `block ${wrong.index}${wrong.mode ? ` (mode=${wrong.mode})` : ''}: ${wrong.matched}/${wrong.compared} matched` };
  const short = blocks.find((b) => (b.shortRows ?? 0) > 0);
  if (short) return { judged: 'SHORT', why: `block ${short.index}: ${short.shortRows} short row(s)` };
  return { judged: 'STRICT PASS', why: `${blocks.map((b) => `${b.matched}/${b.compared}${b.mode ? ` mode=${b.mode}` : ''}`).join(', ')} matched` };
}

function blockDisagreements(b: TokenMatchBlock, rowsKept: boolean): string[] {
  const out: string[] = [];
  const name = `block ${b.index}${b.mode ? ` (mode=${b.mode})` : ''}`;
  if (b.matched > b.compared) out.push(`${name}: matched ${b.matched} exceeds compared ${b.compared}`);
  if (b.fullRows !== null && b.shortRows !== null && b.fullRows + b.shortRows !== b.prompts) out.push(`${name}: full rows ${b.fullRows} + short rows ${b.shortRows} ≠ ${b.prompts} prompt(s)`);
  const t = b.rowTotals;
  if (rowsKept && t.rows > 0) {
    if (t.rows !== b.prompts) out.push(`${name}: ${t.rows} prompt row(s) printed, the TOKEN MATCH line says ${b.prompts}`);
    if (t.compared !== b.compared) out.push(`${name}: prompt rows sum to compared=${t.compared}, the TOKEN MATCH line says ${b.compared}`);
    if (t.matched !== b.matched) out.push(`${name}: prompt rows sum to matched=${t.matched}, the TOKEN MATCH line says ${b.matched}`);
    if (b.shortRows !== null && t.shortRows !== b.shortRows) out.push(`${name}: ${t.shortRows} row(s) marked SHORT RUN, the TOKEN MATCH line says ${b.shortRows}`);
  }
  return out;
}

const ENGINE_WORD: Record<string, TokenGate['judged']> = {
  'STRICT PASS': 'STRICT PASS',
  'NEAR-TIE PASS': 'STRICT PASS',
  DIVERGENCE: 'DIVERGENCE',
  SHORT: 'SHORT',
  REFUSING: 'REFUSED',
};

// The token gate as reported, judged again from the engine's own counters; disagreement is flagged, and the
// worse of the two readings decides the exit class (an engine that says PASS over a divergence does not pass).
export function judgeTokenGate(report: DriverReport): TokenGate {
  const blocks = report.tokenMatch;
  const { judged, why } = fromCounters(blocks, report.openRows.rows);
  const disagreements: string[] = [];
  for (const b of blocks) disagreements.push(...blockDisagreements(b, report.promptsDropped === 0));
  // Rows after the last summary are a cut log only where the engine prints summaries; with none, `why` says it.
  if (report.openRows.rows > 0 && blocks.length > 0) disagreements.push(`${report.openRows.rows} prompt row(s) after the last TOKEN MATCH line (a truncated log?)`);
  const engineVerdicts = report.verdicts.map((v) => (v.detail ? `${v.kind}: ${v.detail}` : v.kind));
  const classes: ExitClass[] = [VERDICT_CLASS[judged] ?? 'void'];
  for (const v of report.verdicts) {
    const word = ENGINE_WORD[v.kind] ?? 'REFUSED';
    if (blocks.length > 0 && word !== judged) disagreements.push(`the engine printed ${v.kind} but its counters read ${judged} (${why})`);
    classes.push(VERDICT_CLASS[word] ?? 'void');
  }
  if (blocks.length > 0 && report.verdicts.length === 0) disagreements.push('the engine printed no verdict line');
  return { blocks, engineVerdicts, judged, why, disagreements, exitClass: worstClass(classes) };
}

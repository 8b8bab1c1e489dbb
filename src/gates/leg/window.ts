import type { DriverReport, TokenMatchBlock } from '../../profiles/types.js';
import type { WindowMissing } from '../../quantity/perToken.js';

// The decode window of one log, written once: a3/ab legs and `analyze` both call this, so a leg log read
// back offline gives the leg's own window. Arrival times are the harness's (a leg log stores them).
export interface DecodeWindow {
  window: { startS: number; endS: number } | null;
  // The block whose tokens the window's rate divides by (null: rows with no TOKEN MATCH line).
  block: TokenMatchBlock | null;
  source: string;
  // Why there is no window, with the refusal it leads to.
  missing: { code: 'MISSING_TERM' | 'WINDOW_UNKNOWN'; why: string; windowMissing?: WindowMissing } | null;
}

const none = (block: TokenMatchBlock | null, code: 'MISSING_TERM' | 'WINDOW_UNKNOWN', why: string, windowMissing?: WindowMissing): DecodeWindow =>
  ({ window: null, block, source: 'unknown', missing: windowMissing ? { code, why, windowMissing } : { code, why } });

// The decode-mode block: mode=decode, or an older build that omits the mode.
export function decodeBlock(blocks: readonly TokenMatchBlock[]): TokenMatchBlock | null {
  return blocks.find((b) => b.mode === null || b.mode === 'decode') ?? null;
}

// From the load-complete line (or the previous block's line) to the arrival of the last prompt row of the
// decode-mode block. A fresh-prefill stream takes no decode step, so it has no decode window at all.
export function decodeWindowOf(report: DriverReport, mode: string): DecodeWindow {
  if (mode === 'fresh-prefill') return none(null, 'MISSING_TERM', 'a fresh-prefill stream takes no decode step — there is no decode window to divide');
  const block = decodeBlock(report.tokenMatch);
  if (!block && report.tokenMatch.length > 0) {
    return none(null, 'MISSING_TERM', `no decode-mode TOKEN MATCH block (modes: ${report.tokenMatch.map((b) => b.mode).join(', ')}) — a fresh-prefill stream takes no decode step`);
  }
  if (!report.load) return none(block, 'WINDOW_UNKNOWN', 'the engine load-complete line never appeared, so the decode window has no start', 'load-line-absent');
  if (report.load.tS === null) return none(block, 'MISSING_TERM', 'the log carries no line arrival times, so the decode window is unknown — pass --window T0:T1', 'no-arrival-times');
  const startS = block ? block.startS : report.load.tS;
  // No TOKEN MATCH block: the last prompt row, else the last ids line (a driver that prints only ids).
  const endS = block ? (block.rowTotals.lastRowS ?? block.tS) : (report.openRows.lastRowS ?? report.ids[report.ids.length - 1]?.tS ?? null);
  if (startS === null || endS === null) return none(block, 'WINDOW_UNKNOWN', 'no prompt row closes the decode window');
  const from = !block || block.index === 0 ? `the load line (line ${report.load.line})` : 'the previous block';
  return { window: { startS, endS }, block, source: `${from} → the last prompt row${block ? ` of block ${block.index}` : ''} (arrival, harness clock)`, missing: null };
}

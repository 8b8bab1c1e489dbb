// A leg log written by nh-gate carries each line's arrival time so `analyze` can rebuild the decode window
// offline: "<monotonic seconds, 6 decimals>\t<the engine's line>". Logs without it are read as plain text.
const TIMED = /^(\d+\.\d{3,9})\t/;

// The line as nh-gate stores it in a run directory's leg log.
export function formatTimedLine(tS: number, text: string): string {
  return `${tS.toFixed(6)}\t${text}`;
}

// Splits a stored line into its arrival time and text; plain lines come back with tS undefined.
export function parseTimedLine(line: string): { tS: number | undefined; text: string } {
  const m = TIMED.exec(line);
  if (!m || m[1] === undefined) return { tS: undefined, text: line };
  return { tS: Number(m[1]), text: line.slice(m[0].length) };
}

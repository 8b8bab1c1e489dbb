// A leg log written by nh-gate carries each line's arrival time so `analyze` can rebuild the decode window
// offline: "<monotonic seconds, 6 decimals>\t<the engine's line>". Logs without it are read as plain text.

// The line as nh-gate stores it in a run directory's leg log.
export function formatTimedLine(tS: number, text: string): string {
  return `${tS.toFixed(6)}\t${text}`;
}

// Splits a stored line into its arrival time and text; plain lines come back with tS undefined.
export function parseTimedLine(line: string): { tS: number | undefined; text: string } {
  // A character scan, not a regex: this runs once per line of a 100 MB log.
  const tab = line.indexOf('\t');
  if (tab < 5 || tab > 24) return { tS: undefined, text: line };
  const dot = line.indexOf('.');
  if (dot < 1 || dot > tab - 4 || dot < tab - 10) return { tS: undefined, text: line };
  for (let i = 0; i < tab; i++) {
    const c = line.charCodeAt(i);
    if (i !== dot && (c < 48 || c > 57)) return { tS: undefined, text: line };
  }
  return { tS: Number(line.slice(0, tab)), text: line.slice(tab + 1) };
}

// A line's arrival time as a leg stores it: whole microseconds of the monotonic clock. The leg's reader
// and its log both use this value, so a log read back gives the leg's own window to the last bit.
export function arrivalS(tNs: bigint): number {
  return Number(tNs / 1000n) / 1e6;
}

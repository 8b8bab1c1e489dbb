// A leg log written by nh-gate carries each line's arrival time so `analyze` can rebuild the decode window
// offline: "<monotonic seconds, 6 decimals>\t<the engine's line>". Logs without it are read as plain text.

// The line as nh-gate stores it in a run directory's leg log.
export function formatTimedLine(tS: number, text: string): string {
  return `${tS.toFixed(6)}\t${text}`;
}

// Splits a stored line into its arrival time and text; plain lines come back with tS undefined.
export function parseTimedLine(line: string): { tS: number | undefined; text: string } {
  const tab = timedTab(line);
  return tab < 0 ? { tS: undefined, text: line } : { tS: timedS(line, tab), text: line.slice(tab + 1) };
}

// Where a stored line's time ends (its tab), or -1 for a plain line: "<digits>.<3 to 9 digits>\t". A character
// scan, not a regex, and no object per line: this runs once per line of a 100 MB log.
export function timedTab(line: string): number {
  const tab = line.indexOf('\t');
  if (tab < 5 || tab > 24) return -1;
  const dot = line.indexOf('.');
  if (dot < 1 || dot > tab - 4 || dot < tab - 10) return -1;
  for (let i = 0; i < tab; i++) {
    const c = line.charCodeAt(i);
    if (i !== dot && (c < 48 || c > 57)) return -1;
  }
  return tab;
}

// The arrival time of a line timedTab accepted, in seconds. Its digits as one integer over a power of ten:
// both that division and Number() of the text are the correctly rounded value of the same decimal, so the
// two agree to the last bit (the leg's window is rebuilt exactly) while no substring is made per line.
// A time whose digits pass 2^53 (not one a leg writes) goes through Number().
export function timedS(line: string, tab: number): number {
  let digits = 0;
  let scale = 1;
  let frac = false;
  for (let i = 0; i < tab; i++) {
    const c = line.charCodeAt(i);
    if (c === 46) frac = true;
    else {
      digits = digits * 10 + (c - 48);
      if (frac) scale *= 10;
    }
  }
  return digits <= Number.MAX_SAFE_INTEGER ? digits / scale : Number(line.slice(0, tab));
}

// A line's arrival time as a leg stores it: whole microseconds of the monotonic clock. The leg's reader
// and its log both use this value, so a log read back gives the leg's own window to the last bit.
export function arrivalS(tNs: bigint): number {
  return Number(tNs / 1000n) / 1e6;
}

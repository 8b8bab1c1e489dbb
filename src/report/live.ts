import type { RunResult } from '../results/types.js';
import { legCompactLines, tailLines } from './compact.js';
import { headerLines, legLines } from './text.js';

// A run is reported as it is saved: the gates call `saved` after every save of the run directory (before
// the first leg, after each leg, at the end), and each listener takes what is new since its last call.
// So the text on stdout, the exports and the run directory never disagree about which legs have ended.
export interface RunListener {
  saved(r: RunResult): void;
}

// Several listeners as one (text and exports side by side).
export function allOf(listeners: ReadonlyArray<RunListener | null>): RunListener {
  const ls = listeners.filter((l): l is RunListener => l !== null);
  return { saved: (r) => ls.forEach((l) => l.saved(r)) };
}

export interface TextReport extends RunListener {
  // The rest of the run (the legs not yet printed, the tables, the verdict), once it has finished.
  end(r: RunResult): void;
}

// The human output, line by line as legs end: the header once the build is done, each leg's line (its full
// block with verbose), and at the end the tables and the verdict. `write` gets whole lines only.
export function textReport(write: (text: string) => void, o: { verbose: boolean }): TextReport {
  let headerShown = false;
  let legsShown = 0;
  const emit = (lines: string[]): void => {
    if (lines.length > 0) write(lines.join('\n') + '\n');
  };
  const catchUp = (r: RunResult): void => {
    if (!headerShown) {
      emit(headerLines(r, o.verbose));
      headerShown = true;
    }
    const fresh = r.legs.slice(legsShown);
    legsShown = r.legs.length;
    emit(fresh.flatMap((l) => (o.verbose ? legLines(l) : legCompactLines(l, r))));
  };
  return {
    saved(r) {
      // Before the legs the header waits for the build (a run that stops there prints it all at the end).
      if (r.status === 'running' || r.legs.length > legsShown) catchUp(r);
    },
    end(r) {
      catchUp(r);
      emit(tailLines(r));
    },
  };
}

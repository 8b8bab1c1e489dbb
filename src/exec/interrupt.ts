// Ctrl-C for a series: the first SIGINT/SIGTERM aborts the running leg (its tree is killed) and stops
// the series, so the legs already finished are kept and reported; it never kills nh-gate mid-write.
// A closed stdout (`nh-gate ab … | head -1`) stops a series the same way (src/cli/pipe.ts).
export interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

// The series running now, each with what it says when stopped; module state because signals are process state.
const active = new Set<(why: string) => void>();

// Installs the handlers; call dispose() when the series ends.
export function onInterrupt(notify: (sig: string) => void = () => {}): Interrupt {
  const ctl = new AbortController();
  const stop = (why: string): void => {
    if (!ctl.signal.aborted) {
      notify(why);
      ctl.abort(why);
    }
  };
  const handler = (sig: NodeJS.Signals): void => stop(sig);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  active.add(stop);
  return {
    signal: ctl.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      active.delete(stop);
    },
  };
}

// Stops every series in progress as Ctrl-C would, saying why; false when none is running.
export function interruptRuns(why: string): boolean {
  if (active.size === 0) return false;
  for (const stop of [...active]) stop(why);
  return true;
}

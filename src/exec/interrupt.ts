// Ctrl-C for a series: the first SIGINT/SIGTERM aborts the running leg (its tree is killed) and stops
// the series, so the legs already finished are kept and reported; it never kills nh-gate mid-write.
export interface Interrupt {
  signal: AbortSignal;
  dispose(): void;
}

// Installs the handlers; call dispose() when the series ends.
export function onInterrupt(notify: (sig: string) => void = () => {}): Interrupt {
  const ctl = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (!ctl.signal.aborted) {
      notify(sig);
      ctl.abort(sig);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: ctl.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

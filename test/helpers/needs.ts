// Tests that need something this machine may not have built (llama-server, the CUDA compile) are skipped
// and counted, never passed. Their describe title carries what they need and the one command that builds
// it; test/reporters/needs.ts gathers those titles into one summary line per need at the end of the run.

export interface Need {
  what: string;
  ready: boolean;
  build: string;
}

const MARK = /\(skipped: needs (.+?); build it with: (.+)\)$/;

// The title of a describe block that needs `n`: unchanged when ready, marked for the summary when not.
export function needsTitle(title: string, n: Need): string {
  return n.ready ? title : `${title} (skipped: needs ${n.what}; build it with: ${n.build})`;
}

// What a marked title needs, or null (used by the reporter).
export function parseNeed(title: string): { what: string; build: string } | null {
  const m = MARK.exec(title);
  return m ? { what: m[1]!, build: m[2]! } : null;
}

// One line per need: how many tests it skipped and the command that builds it.
export function summarizeNeeds(skipped: ReadonlyArray<{ what: string; build: string }>): string[] {
  const by = new Map<string, { build: string; n: number }>();
  for (const s of skipped) {
    const e = by.get(s.what) ?? { build: s.build, n: 0 };
    e.n += 1;
    by.set(s.what, e);
  }
  return [...by].map(([what, e]) => `skipped ${e.n} test${e.n === 1 ? ' that needs' : 's that need'} ${what}: build it with \`${e.build}\``);
}

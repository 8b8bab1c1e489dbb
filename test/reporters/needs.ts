import type { Reporter, TestModule } from 'vitest/node';
import { parseNeed, summarizeNeeds } from '../helpers/needs.js';

// Prints, after vitest's own summary, one line per missing build that skipped tests (see test/helpers/needs.ts).
export default class NeedsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped: { what: string; build: string }[] = [];
    for (const m of modules) {
      for (const t of m.children.allTests('skipped')) {
        const need = parseNeed(t.fullName.split(' > ').find((p) => parseNeed(p)) ?? '');
        if (need) skipped.push(need);
      }
    }
    const lines = summarizeNeeds(skipped);
    if (lines.length) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';

// Every `npx nh-gate …  # exit N (WORD)` line in these docs is run, in file order, against one results
// directory, and must exit with one of the stated codes and print one of the stated words.
const DOCS = ['docs/statistics.md', 'docs/history.md', 'docs/output.md'];

interface Example { doc: string; argv: string[]; exits: number[]; words: string[] }

function examples(doc: string): Example[] {
  const text = readFileSync(join(repoRoot, doc), 'utf8');
  const out: Example[] = [];
  for (const m of text.matchAll(/^npx nh-gate (.+?)\s+# exit ([\d or]+) \(([^)]+)\)$/gm)) {
    out.push({ doc, argv: m[1]!.trim().split(/\s+/), exits: m[2]!.split(' or ').map(Number), words: m[3]!.split(' or ') });
  }
  return out;
}

describe('doc examples run as written', () => {
  beforeAll(async () => {
    await ensureEngineBuilt();
  }, 600_000);

  it('finds the examples (a doc edit that drops them is caught)', () => {
    expect(examples('docs/statistics.md').length).toBeGreaterThanOrEqual(3);
    expect(examples('docs/history.md').length).toBeGreaterThanOrEqual(2);
    expect(examples('docs/output.md').length).toBeGreaterThanOrEqual(2);
  });

  it('each example exits as stated and prints its verdict word', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-docs-'));
    for (const ex of DOCS.flatMap(examples)) {
      const r = await execa('node', [join(repoRoot, 'bin', 'nh-gate.js'), ...ex.argv, '--results-dir', dir], { cwd: repoRoot, reject: false, env: { ...process.env, NH_GATE_LOCK: join(dir, 'lock') } });
      const what = `${ex.doc}: nh-gate ${ex.argv.join(' ')} → exit ${r.exitCode}\n${r.stdout.slice(-600)}\n${r.stderr.slice(-600)}`;
      expect(ex.exits, what).toContain(r.exitCode);
      expect(ex.words.some((w) => r.stdout.includes(w)), what).toBe(true);
    }
  }, 300_000);
});

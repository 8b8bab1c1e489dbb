import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { repoRoot } from '../helpers/engine.js';
import { nhGate, resultsDir, runs } from './cli.js';

// Fault: the engine prints hundreds of MB before its token lines. Issue 15 measured 2.0 GB RSS at 300 MB
// before lines streamed to the log; the bound here is the target for 1 GB (bench/flood.mjs runs 1 GB).
const RSS_BOUND_MIB = 250;

describe('fault: a flood of engine output on a live leg', () => {
  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  });

  it('200 MB of diagnostics before the token lines: STRICT PASS, the whole log on disk, nh-gate under 250 MiB', async () => {
    const repo = floodRepo({ FLOOD_BYTES: String(200_000_000) });
    const dir = resultsDir();
    const r = await nhGate(['a3', '--recipe', repo.recipePath, '--json'], dir);
    expect(r.stderr).not.toMatch(/INTERNAL|\n\s+at /);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.verdict.word).toBe('STRICT PASS');
    const leg = doc.legs[0];
    expect(leg.tokens.compared).toBe(8);
    // Only the last lines are held for the report, however long the output.
    expect(leg.process.lastLines.length).toBeLessThanOrEqual(12);
    expect(leg.process.lastLines.at(-1)).toBe('[nh-ref] STRICT PASS');
    const log = join(runs(dir)[0]!.dir, leg.logFile);
    expect(statSync(log).size).toBeGreaterThan(200_000_000);
    // The disk reserve is given back once the run's record is written.
    expect(existsSync(join(runs(dir)[0]!.dir, '.reserve'))).toBe(false);
    expect(r.peakMiB).toBeGreaterThan(0);
    expect(r.peakMiB).toBeLessThan(RSS_BOUND_MIB);
    rmSync(dir, { recursive: true, force: true });
  });
});

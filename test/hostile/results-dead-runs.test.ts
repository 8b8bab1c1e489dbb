import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { nhGate, resultsDir, runs, waitFor } from '../faults/cli.js';

// Issue 21: a run killed before its first leg (SIGKILL in the build, or in a prepare step) left a run
// directory without result.json, some holding only the 512 KiB `.reserve`, that no later run marked or
// removed. The next run now removes the ones that hold nothing and marks the others interrupted.
const linux = process.platform === 'linux';

// A flood-engine recipe whose build (or prepare step) touches a marker file, then sleeps: killed there.
function slowRepo(where: 'build' | 'prepare'): { recipePath: string; marker: string } {
  const repo = floodRepo();
  const recipe = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
  const marker = join(repo.root, `in-${where}`);
  const step = ['sh', '-c', `touch ${marker}; sleep 4`];
  if (where === 'build') recipe.build = step;
  else recipe.prepare = [step];
  writeFileSync(repo.recipePath, JSON.stringify(recipe, null, 2));
  return { recipePath: repo.recipePath, marker };
}

async function killedIn(where: 'build' | 'prepare', dir: string): Promise<{ pid: number; runDir: string }> {
  const { recipePath, marker } = slowRepo(where);
  const before = new Set(runs(dir).map((r) => r.dir));
  const run = nhGate(['a3', '--recipe', recipePath], dir);
  expect(await waitFor(() => existsSync(marker))).toBe(true);
  process.kill(run.pid, 'SIGKILL');
  expect((await run).signal).toBe('SIGKILL');
  const made = runs(dir).filter((r) => !before.has(r.dir));
  expect(made).toHaveLength(1);
  expect(made[0]!.result).toBeNull();
  return { pid: run.pid, runDir: made[0]!.dir };
}

describe('dead runs without result.json: the next run settles them', () => {
  it.skipIf(!linux)('killed in the build (only .reserve): removed; killed in a prepare step (build.log): marked interrupted', async () => {
    const dir = resultsDir();
    const inBuild = await killedIn('build', dir);
    expect(readdirSync(inBuild.runDir).sort()).toEqual(['.harness.json', '.reserve']);
    // The next run (itself killed later, in its prepare step) removed it before its build.
    const inPrepare = await killedIn('prepare', dir);
    expect(existsSync(inBuild.runDir)).toBe(false);
    expect(readdirSync(inPrepare.runDir).sort()).toEqual(['.harness.json', '.reserve', 'build.log']);

    const next = await nhGate(['a3', '--recipe', floodRepo().recipePath, '--json'], dir);
    expect(next.code, next.stderr).toBe(0);
    const host = hostname();
    const notes: string[] = JSON.parse(next.stdout).notes;
    expect(notes).toContain(`marked ${inPrepare.runDir} interrupted before its first leg (harness died): nh-gate pid ${inPrepare.pid} on ${host} is gone; kept build.log`);
    const marked = JSON.parse(readFileSync(join(inPrepare.runDir, 'result.json'), 'utf8'));
    expect(marked).toMatchObject({ status: 'interrupted', legs: [], verdict: { word: 'VOID', exitClass: 'void' }, harness: { pid: inPrepare.pid, host } });
    expect(readdirSync(inPrepare.runDir).sort()).toEqual(['.harness.json', 'build.log', 'result.json']);
    // Every run directory now has its result.json: none is left for the run after.
    expect(runs(dir).filter((r) => r.result === null)).toEqual([]);
  }, 180_000);
});

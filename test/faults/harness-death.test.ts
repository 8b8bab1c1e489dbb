import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { groupAlive, terminateGroup } from '../../src/exec/tree.js';
import { judgeStaleGroup } from '../../src/exec/staleGroup.js';
import { harnessDead } from '../../src/results/deadRuns.js';
import { nhGate, resultsDir, runs, waitFor } from './cli.js';

// Fault: nh-gate itself is SIGKILLed mid-`ab` (OOM killer, a CI timeout). The B arm hangs with a worker
// child of its own, so the leg is surely running when the harness dies.
const linux = process.platform === 'linux';

// Every leg group a test starts, ended afterwards whatever the test found (a red test leaves no orphan).
const started: number[] = [];
afterEach(async () => {
  for (const pgid of started.splice(0)) if (groupAlive(pgid)) await terminateGroup(pgid, 200);
});

interface Lock { pid: number; reaperPid: number | null; leg: { pgid: number; startTicks: number | null } | null }

// Starts an ab whose second leg hangs, waits until that leg's group is in the lock, and returns both.
async function abKilledInLeg2(dir: string) {
  const repo = floodRepo({ FLOOD_HANG_WHEN: '1' });
  const run = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '2'], dir);
  const lockFile = join(dir, 'gpu.lock');
  const lock = (): Lock | null => {
    try {
      return JSON.parse(readFileSync(lockFile, 'utf8')) as Lock;
    } catch {
      return null;
    }
  };
  // Leg 1 (A) finishes; leg 2 (B) hangs: its group is recorded once it is spawned.
  expect(await waitFor(() => (runs(dir)[0]?.result?.legs?.length ?? 0) === 1 && lock()?.leg != null && groupAlive(lock()!.leg!.pgid))).toBe(true);
  started.push(lock()!.leg!.pgid);
  return { repo, run, lock: lock()!, lockFile };
}

describe('fault: the harness dies (SIGKILL) mid-leg', () => {
  it.skipIf(!linux)('the engine dies with it (the reaper ends the leg group); the next nh-gate marks the run interrupted (harness died)', async () => {
    const dir = resultsDir();
    const { repo, run, lock } = await abKilledInLeg2(dir);
    const pgid = lock.leg!.pgid;
    process.kill(run.pid, 'SIGKILL');
    expect((await run).signal).toBe('SIGKILL');
    // The engine and its worker child are gone without anyone but the reaper acting.
    expect(await waitFor(() => !groupAlive(pgid))).toBe(true);
    expect(runs(dir)[0]!.result!.status).toBe('running');

    const next = await nhGate(['a3', '--recipe', repo.recipePath], dir);
    expect(next.code).toBe(0);
    // The dead run is the ab (the a3 may share its second, and its name sorts first).
    const deadRun = runs(dir).find((r) => r.result?.command === 'ab')!;
    const dead = deadRun.result!;
    expect(dead.status).toBe('interrupted');
    expect(dead.legs).toHaveLength(1);
    expect(dead.notes.at(-1)).toBe(`interrupted (harness died): nh-gate pid ${run.pid} on ${dead.harness.host} is gone; 1 finished leg(s) kept`);
    expect(`${dead.verdict.reasons[0].code}: ${dead.verdict.reasons[0].message}`).toMatch(/^HARNESS_DIED: /);
    expect(next.stdout + next.stderr).toContain(`marked ${deadRun.dir} interrupted (harness died)`);
  });

  it.skipIf(!linux)('reaper gone too: the next nh-gate ends the stale lock\'s group, proven by pgid and start time', async () => {
    const dir = resultsDir();
    const { repo, run, lock } = await abKilledInLeg2(dir);
    const pgid = lock.leg!.pgid;
    expect(lock.reaperPid).toBeGreaterThan(0);
    process.kill(lock.reaperPid!, 'SIGKILL');
    process.kill(run.pid, 'SIGKILL');
    await run;
    // Nobody watches the engine now: it runs on, holding "the GPU".
    expect(groupAlive(pgid)).toBe(true);
    const next = await nhGate(['a3', '--recipe', repo.recipePath, '--json'], dir);
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout).notes).toContain(`STALE_LEG_GROUP: ended process group ${pgid} left running by dead nh-gate pid ${run.pid} (leader start time matched the lock)`);
    expect(groupAlive(pgid)).toBe(false);
  });

  it.skipIf(!linux)('a stale lock whose group leader started at another time is named and left running', async () => {
    const dir = resultsDir();
    const { repo, run, lock, lockFile } = await abKilledInLeg2(dir);
    const pgid = lock.leg!.pgid;
    process.kill(lock.reaperPid!, 'SIGKILL');
    process.kill(run.pid, 'SIGKILL');
    await run;
    // As if the pgid had been recycled by an unrelated process: the recorded start time does not match.
    const doc = JSON.parse(readFileSync(lockFile, 'utf8'));
    doc.leg.startTicks = (doc.leg.startTicks as number) - 1;
    writeFileSync(lockFile, JSON.stringify(doc));
    const next = await nhGate(['a3', '--recipe', repo.recipePath, '--json'], dir);
    expect(JSON.parse(next.stdout).notes.join('\n')).toMatch(new RegExp(`STALE_LEG_GROUP: process group ${pgid} is alive but its leader started at tick \\d+, not \\d+ as recorded: not the dead run's; left running`));
    expect(groupAlive(pgid)).toBe(true);
  });
});

describe('what counts as proof (pure)', () => {
  it('a stale group is ended only when alive with the recorded start time', () => {
    expect(judgeStaleGroup({ pid: 1, leg: { pgid: 9, startTicks: 5 } }, true, 5)?.action).toBe('ended');
    expect(judgeStaleGroup({ pid: 1, leg: { pgid: 9, startTicks: 5 } }, true, 6)?.action).toBe('left');
    expect(judgeStaleGroup({ pid: 1, leg: { pgid: 9, startTicks: null } }, true, 5)?.action).toBe('left');
    expect(judgeStaleGroup({ pid: 1, leg: { pgid: 9, startTicks: 5 } }, false, null)?.action).toBe('gone');
    expect(judgeStaleGroup({ pid: 1, leg: null }, true, 5)).toBeNull();
  });

  it('a harness is dead only on this host: gone, or its pid now names a process started at another time', () => {
    expect(harnessDead({ pid: 1, host: 'a', startTicks: 5 }, 'a', false, null)).toBe(true);
    expect(harnessDead({ pid: 1, host: 'a', startTicks: 5 }, 'a', true, 6)).toBe(true);
    expect(harnessDead({ pid: 1, host: 'a', startTicks: 5 }, 'a', true, 5)).toBe(false);
    expect(harnessDead({ pid: 1, host: 'b', startTicks: 5 }, 'a', false, null)).toBe(false);
  });
});

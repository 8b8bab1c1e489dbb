import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostileA3, hostileRepo } from './witness-repo.js';
import { nhGate, resultsDir, waitFor } from '../faults/cli.js';
import { procAlive } from '../../src/exec/procfs.js';

// Processes that escape (issue 21): nothing a leg starts outlives the leg, and the leg's timeout holds whatever
// its descendants do. The hostile engine's worker is `sleep 300` in a session of its own (setsid).

function workerOf(leg: Record<string, any>): number {
  const line = (leg.process.lastLines as string[]).find((l) => l.includes('worker '));
  return Number(line!.split('worker ')[1]);
}

const pidFile = () => join(mkdtempSync(join(tmpdir(), 'nh-hostile-pid-')), 'pids');

// Every worker the engine started is listed here; should a guard fail, the test kills its own leftovers.
const PIDS = pidFile();
const env = { HOSTILE_PIDFILE: PIDS };
afterAll(() => {
  const left = existsSync(PIDS) ? readFileSync(PIDS, 'utf8').trim().split('\n').map(Number).filter((p) => p > 0 && procAlive(p) === true) : [];
  for (const p of left) process.kill(p, 'SIGKILL');
});

describe('a worker in its own session', () => {
  it('holding stdout after the driver exits: the leg ends at once, the worker is killed and recorded', async () => {
    const t0 = Date.now();
    const { run, leg, text } = await hostileA3('setsid-holds-stdout', 'counters', { timeoutS: 15, env });
    const wallS = (Date.now() - t0) / 1000;
    expect(run.code).toBe(0);
    // Before: the leg waited on the pipe for as long as the worker lived (300 s here, 104 s in the issue).
    expect(wallS).toBeLessThan(60);
    const worker = workerOf(leg);
    expect(procAlive(worker)).toBe(false);
    const killed = leg.process.contained.killed as Array<{ pid: number; how: string; comm: string }>;
    expect(killed).toContainEqual(expect.objectContaining({ pid: worker, comm: 'sleep', how: expect.stringMatching(/^(marker|reparented)$/) }));
    expect(leg.process.contained.mechanisms).toMatch(/^child subreaper \+ process group \+ leg marker/);
    expect(text('summary.md')).toMatch(new RegExp(`contained: killed \\d+ process\\(es\\) the leg left behind: .*pid ${worker} sleep`));
  });

  it('and a driver that hangs on it: the timeout holds (VOID TIMEOUT, exit 3), the worker does not outlive the leg', async () => {
    const t0 = Date.now();
    const { run, leg } = await hostileA3('setsid-holds-stdout-hang', 'counters', { timeoutS: 3, env });
    const wallS = (Date.now() - t0) / 1000;
    expect(run.code).toBe(3);
    expect(leg.voidReasons.map((r: { code: string }) => r.code)).toEqual(['TIMEOUT']);
    expect(wallS).toBeLessThan(60);
    expect(procAlive(workerOf(leg))).toBe(false);
  });

  it('detached (no pipes): killed at the leg\'s end, not left running after nh-gate exits', async () => {
    const { run, leg } = await hostileA3('detached', 'counters', { env });
    expect(run.code).toBe(0);
    const worker = workerOf(leg);
    expect(procAlive(worker)).toBe(false);
    expect(leg.process.contained.killed.map((k: { pid: number }) => k.pid)).toContain(worker);
  });

  it('where the addon cannot load: the process group and the leg marker still hold, and the leg says which', async () => {
    const { run, leg } = await hostileA3('detached', 'counters', { env, cliEnv: { NH_GATE_ADDON: '/nonexistent/nh_nvml.node' } });
    expect(run.code).toBe(0);
    expect(procAlive(workerOf(leg))).toBe(false);
    expect(leg.process.contained.mechanisms).toBe('process group + leg marker (NH_GATE_LEG in the environment); no subreaper: /nonexistent/nh_nvml.node does not exist (the install step could not build it; run \'node scripts/build-addon.mjs\' to see why)');
    expect(leg.process.contained.killed).toContainEqual(expect.objectContaining({ pid: workerOf(leg), how: 'marker' }));
  });

  it('nh-gate SIGKILLed mid-leg: its reaper ends the worker that left the group, by the leg marker', async () => {
    const pids = pidFile();
    const repo = hostileRepo({ HOSTILE_CASE: 'setsid-holds-stdout-hang', HOSTILE_PIDFILE: pids }, 600);
    onTestFinished(() => {
      const w = existsSync(pids) ? Number(readFileSync(pids, 'utf8').trim()) : 0;
      if (w > 0 && procAlive(w) === true) process.kill(w, 'SIGKILL');
    });
    const child = nhGate(['a3', '--recipe', repo.recipe('counters')], resultsDir());
    expect(await waitFor(() => existsSync(pids) && readFileSync(pids, 'utf8').trim() !== '', 60_000)).toBe(true);
    const worker = Number(readFileSync(pids, 'utf8').trim());
    expect(procAlive(worker)).toBe(true);
    process.kill(child.pid, 'SIGKILL');
    await child;
    expect(await waitFor(() => procAlive(worker) === false, 20_000)).toBe(true);
  });
});

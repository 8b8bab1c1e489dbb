import { describe, expect, it } from 'vitest';
import { cpuContention, treeOf, trackTree } from '../../src/exec/ours.js';
import { runProcess } from '../../src/exec/spawn.js';

const proc = (pid: number, ppid: number, pgrp: number) => ({ pid, ppid, pgrp, session: pgrp, state: 'S', startTicks: 0, cpuTicks: 0 });

describe('ours = the leg\'s whole process tree', () => {
  it('children and grandchildren by ppid, the group, and pids already seen (re-parented)', () => {
    const procs = [proc(10, 1, 10), proc(11, 10, 10), proc(12, 11, 12), proc(13, 1, 10), proc(14, 1, 14), proc(15, 12, 15)];
    expect([...treeOf(10, procs)].sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 15]);
    expect(treeOf(10, [proc(20, 1, 20)], new Set([20])).has(20)).toBe(true);
    expect(treeOf(10, procs).has(14)).toBe(false);
  });

  it('tracks a real grandchild that left the process group (setsid) while the leg ran', async () => {
    let tracker: ReturnType<typeof trackTree> | null = null;
    const run = await runProcess(
      { argv: ['sh', '-c', 'setsid sh -c "echo gc=$$; sleep 0.6" & wait'], timeoutS: 20 },
      { onSpawn: (pid) => { tracker = trackTree(pid, 50); } },
    );
    const seen = (tracker as ReturnType<typeof trackTree> | null)!.stop();
    const gc = Number(/gc=(\d+)/.exec(run.lines.map((l) => l.text).join('\n'))?.[1]);
    expect(Number.isInteger(gc)).toBe(true);
    expect(seen.pids.has(run.pid!)).toBe(true);
    expect(seen.pids.has(gc)).toBe(true);
    expect(seen.cpuS).not.toBeNull();
  });
});

describe('CPU contention on a CPU leg', () => {
  const stop = (treeCpuS: number, busyS: number) => ({ pids: new Set([1]), cpuS: treeCpuS, host: { busyS, wallS: 2, cores: 2, loadAvg1: 7.5 } });
  it('flags by name when other processes used more than half of the host over the leg', () => {
    expect(cpuContention(stop(1, 4))).toMatch(/^CPU_CONTENDED: other processes used 3\.00 CPU-s of the 4\.00 the host's 2 core\(s\) had over the leg \(75%; load average 7\.50\)/);
    expect(cpuContention(stop(1, 2.9))).toBeNull();
    expect(cpuContention({ pids: new Set([1]), cpuS: null, host: null })).toBeNull();
  });
});

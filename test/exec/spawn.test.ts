import { describe, expect, it } from 'vitest';
import { runProcess } from '../../src/exec/spawn.js';
import { pidAlive } from '../../src/exec/lock.js';
import { exitedCleanly, lastLines, describeEnd } from '../../src/exec/types.js';
import { LineSplitter } from '../../src/exec/lines.js';

describe('runProcess (real processes)', () => {
  it('stamps each line when it arrives, not when the process ends', async () => {
    const run = await runProcess({ argv: ['sh', '-c', 'echo first; sleep 0.4; echo second; echo oops >&2'] });
    expect(exitedCleanly(run)).toBe(true);
    const texts = run.lines.map((l) => l.text);
    expect(texts).toEqual(expect.arrayContaining(['first', 'second', 'oops']));
    const first = run.lines.find((l) => l.text === 'first')!;
    const second = run.lines.find((l) => l.text === 'second')!;
    const gapS = Number(second.tNs - first.tNs) / 1e9;
    expect(gapS).toBeGreaterThan(0.3);
    expect(run.lines.find((l) => l.text === 'oops')!.stream).toBe('stderr');
    expect(first.tNs).toBeGreaterThanOrEqual(run.startNs);
  });

  it('returns a crash as data: exit code and last lines', async () => {
    const run = await runProcess({ argv: ['sh', '-c', 'echo step 1; echo step 2; exit 3'] });
    expect(exitedCleanly(run)).toBe(false);
    expect(run.exitCode).toBe(3);
    expect(run.timedOut).toBe(false);
    expect(lastLines(run, 1)).toEqual(['step 2']);
    expect(describeEnd(run)).toBe('exit 3');
  });

  it('kills the whole process tree on timeout (no orphan survives)', async () => {
    const t0 = Date.now();
    const run = await runProcess({ argv: ['sh', '-c', 'sleep 30 & echo child $!; wait'], timeoutS: 0.5, killGraceMs: 300 });
    expect(run.timedOut).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5000);
    const childPid = Number(run.lines.find((l) => l.text.startsWith('child '))!.text.split(' ')[1]);
    expect(childPid).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(pidAlive(childPid)).toBe(false);
    expect(describeEnd(run)).toMatch(/timed out/);
  });

  it('kills children left behind by a leader that exited', async () => {
    const run = await runProcess({ argv: ['sh', '-c', 'sleep 30 & echo child $!; exit 0'], killGraceMs: 300 });
    expect(run.exitCode).toBe(0);
    expect(run.orphansKilled).toBe(true);
    const childPid = Number(run.lines.find((l) => l.text.startsWith('child '))!.text.split(' ')[1]);
    await new Promise((r) => setTimeout(r, 100));
    expect(pidAlive(childPid)).toBe(false);
  });

  it('stops on abort (Ctrl-C) and marks the run interrupted', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    const t0 = Date.now();
    const run = await runProcess({ argv: ['sleep', '30'], killGraceMs: 300 }, { signal: ctl.signal });
    expect(run.interrupted).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(describeEnd(run)).toMatch(/interrupted/);
  });

  it('reports a binary that cannot start by its reason', async () => {
    const run = await runProcess({ argv: ['/nonexistent/driver-binary'] });
    expect(run.spawnError).toMatch(/ENOENT/);
    expect(exitedCleanly(run)).toBe(false);
  });

  it('passes env additions to the driver', async () => {
    const run = await runProcess({ argv: ['sh', '-c', 'echo "v=$NH_TEST_FLAG"'], env: { NH_TEST_FLAG: 'on' } });
    expect(run.lines[0]!.text).toBe('v=on');
  });
});

describe('LineSplitter', () => {
  it('joins partial chunks and stamps a line with the chunk that completed it', () => {
    const s = new LineSplitter('stdout');
    expect(s.push('ab', 1n)).toEqual([]);
    expect(s.push('c\nde\r\nf', 2n)).toEqual([
      { tNs: 2n, stream: 'stdout', text: 'abc' },
      { tNs: 2n, stream: 'stdout', text: 'de' },
    ]);
    expect(s.flush(3n)).toEqual([{ tNs: 3n, stream: 'stdout', text: 'f' }]);
    expect(s.flush(4n)).toEqual([]);
  });
});

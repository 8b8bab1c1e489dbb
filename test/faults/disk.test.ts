import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { writeAtomic } from '../../src/io/atomic.js';
import { NhGateError } from '../../src/errors.js';
import { readdirSync, readFileSync } from 'node:fs';
import { SamplesWriter } from '../../src/sampler/writer.js';
import { openLogSink } from '../../src/results/logSink.js';
import { DEFAULT_LOG_BYTES_PER_LEG, expectedLogBytes, spaceShortfall } from '../../src/results/space.js';
import { diskFaultOf, rethrowDiskFault } from '../../src/io/diskFaults.js';
import { nhGate, runs } from './cli.js';

// Fault: the results directory is on a full or read-only filesystem. A real 3 MB tmpfs needs root (CI runs as
// root) and a kernel that lets it mount; elsewhere these are skipped, and vitest counts them as skipped.
const isRoot = process.getuid?.() === 0;
const mounts: string[] = [];

function canMountTmpfs(): boolean {
  if (!isRoot) return false;
  const dir = mkdtempSync(join(tmpdir(), 'nh-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const root = canMountTmpfs();
if (!root) console.warn(`test/faults/disk: ${isRoot ? 'root but mount -t tmpfs is not permitted' : 'not root'}: the tmpfs cases are skipped`);

function tmpfs(opts: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

afterEach(() => {
  for (const m of mounts.splice(0)) {
    try {
      execFileSync('umount', [m]);
      rmSync(m, { recursive: true, force: true });
    } catch {
      /* left for the OS */
    }
  }
});

function noInternal(r: { stderr: string; stdout: string }): void {
  expect(r.stderr).not.toMatch(/INTERNAL|\n\s+at /);
  expect(r.stdout).not.toMatch(/INTERNAL/);
}

describe('fault: a full or unwritable results directory', () => {
  it.skipIf(!root)('3 MB tmpfs, default expectation: DISK_FULL before the first leg, exit 3, the failed run recorded', async () => {
    const mnt = tmpfs('size=3m');
    const repo = floodRepo({ FLOOD_BYTES: '10000000' });
    const r = await nhGate(['a3', '--recipe', repo.recipePath], join(mnt, 'r'));
    noInternal(r);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/VOID — DISK_FULL: .* bytes free; 1 leg\(s\) are expected to log 8388608 bytes .*nothing was run/);
    const [run] = runs(join(mnt, 'r'));
    expect(run!.result).toMatchObject({ status: 'failed', verdict: { word: 'VOID', exitClass: 'void' }, legs: [] });
    expect(existsSync(join(run!.dir, 'legs'))).toBe(false);
    expect(existsSync(join(run!.dir, '.reserve'))).toBe(false);
  });

  it.skipIf(!root)('3 MB tmpfs filled mid-leg by a 10 MB log: DISK_FULL by name, exit 3, result.json "failed" with the leg, its log kept', async () => {
    const mnt = tmpfs('size=3m');
    const repo = floodRepo({ FLOOD_BYTES: '10000000' });
    const r = await nhGate(['a3', '--recipe', repo.recipePath], join(mnt, 'r'), { NH_GATE_EXPECT_LOG_BYTES: '0' });
    noInternal(r);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/VOID — DISK_FULL: leg 1's log legs\/leg-01-decode\.log stopped after \d+ bytes: ENOSPC/);
    const [run] = runs(join(mnt, 'r'));
    expect(run!.result!.status).toBe('failed');
    expect(run!.result!.legs).toHaveLength(1);
    expect(run!.result!.legs[0].outputNotes[0]).toMatch(/^DISK_FULL: the leg log stopped after \d+ bytes/);
    expect(statSync(join(run!.dir, 'legs', 'leg-01-decode.log')).size).toBeGreaterThan(1_000_000);
  });

  it.skipIf(!root)('writeAtomic on a full disk: DISK_FULL naming the file, and no half temp file left behind', () => {
    const mnt = tmpfs('size=1m');
    let err: unknown = null;
    try {
      writeAtomic(join(mnt, 'result.json'), Buffer.alloc(2 * 1024 * 1024));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NhGateError);
    expect(err).toMatchObject({ code: 'DISK_FULL', exitClass: 'void', message: `no space left writing ${join(mnt, 'result.json')} (ENOSPC)` });
    expect(readdirSync(mnt)).toEqual([]);
  });

  it.skipIf(!root)('the samples file filling the disk mid-window: no throw (it runs on a timer), the failure kept for the sampler\'s result', () => {
    const mnt = tmpfs('size=64k');
    const path = join(mnt, 'samples.jsonl');
    const w = new SamplesWriter(path, { kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'test' });
    for (let i = 0; i < 4000; i++) w.append([{ kind: 'util', tS: i, gpuPct: 50, periodS: 0.02 }]);
    expect(w.failure).toMatch(/^samples file .* stopped: ENOSPC/);
    expect(() => w.finish({ kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'final' })).not.toThrow();
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"kind":"header"');
  });

  it.skipIf(!root)('a read-only results filesystem: UNWRITABLE, exit 2, no stack trace', async () => {
    const mnt = tmpfs('size=1m');
    mkdirSync(join(mnt, 'r'));
    execFileSync('mount', ['-o', 'remount,ro', mnt]);
    const repo = floodRepo({});
    const r = await nhGate(['a3', '--recipe', repo.recipePath], join(mnt, 'r'));
    noInternal(r);
    expect(r.stderr).toMatch(/nh-gate: UNWRITABLE: cannot write .*\(EROFS\)/);
    expect(r.code).toBe(2);
  });

  it.skipIf(isRoot)('an unwritable results directory (not root: chmod): UNWRITABLE, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-ro-'));
    execFileSync('chmod', ['555', dir]);
    const repo = floodRepo({});
    const r = await nhGate(['a3', '--recipe', repo.recipePath], join(dir, 'r'));
    noInternal(r);
    expect(r.stderr).toMatch(/nh-gate: UNWRITABLE: cannot write .*\(EACCES\)/);
    expect(r.code).toBe(2);
  });
});

describe('disk faults without root', () => {
  it('the leg log sink on /dev/full (ENOSPC on every write): no throw, the fault kept as data', () => {
    const sink = openLogSink('/dev/full');
    for (let i = 0; i < 10; i++) sink.write('x'.repeat(200_000));
    expect(sink.close()).toMatchObject({ bytes: 0, droppedBytes: 2_000_010, fault: 'DISK_FULL', error: expect.stringMatching(/ENOSPC/) });
  });

  it('the free-space rule: legs left × the larger of the expectation and the largest log so far', () => {
    expect(expectedLogBytes(0, {})).toBe(DEFAULT_LOG_BYTES_PER_LEG);
    expect(expectedLogBytes(0, { NH_GATE_EXPECT_LOG_BYTES: '0' })).toBe(0);
    expect(expectedLogBytes(50, { NH_GATE_EXPECT_LOG_BYTES: '10' })).toBe(50);
    expect(expectedLogBytes(0, { NH_GATE_EXPECT_LOG_BYTES: 'lots' })).toBe(DEFAULT_LOG_BYTES_PER_LEG);
    expect(spaceShortfall(100, 2, 50, '/r')).toBeNull();
    expect(spaceShortfall(99, 2, 50, '/r')).toBe('/r has 99 bytes free; 2 leg(s) are expected to log 100 bytes (50 per leg; NH_GATE_EXPECT_LOG_BYTES sets it)');
    expect(spaceShortfall(null, 2, 50, '/r')).toBeNull();
  });

  it('fs error codes map to the two named states, anything else is left alone', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EFBIG']) expect(diskFaultOf({ code })).toBe('DISK_FULL');
    for (const code of ['EACCES', 'EPERM', 'EROFS']) expect(diskFaultOf({ code })).toBe('UNWRITABLE');
    expect(diskFaultOf({ code: 'EIO' })).toBeNull();
    expect(() => rethrowDiskFault(Object.assign(new Error('x'), { code: 'EIO' }), '/p')).toThrow('x');
  });
});

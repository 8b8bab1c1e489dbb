import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { acquireLock, lockPath, withLock } from '../../src/exec/lock.js';
import { NhGateError } from '../../src/errors.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'nh-lock-'));

describe('GPU lock', () => {
  it('takes its path from NH_GATE_LOCK, else .nh-gate/gpu.lock', () => {
    expect(lockPath({ NH_GATE_LOCK: '/tmp/x.lock' }, '/repo')).toBe('/tmp/x.lock');
    expect(lockPath({}, '/repo')).toBe('/repo/.nh-gate/gpu.lock');
  });

  it('refuses a second holder while the first is alive, naming it', () => {
    const p = join(dir(), 'sub', 'gpu.lock');
    const held = acquireLock(p, 'a3');
    let err: unknown;
    try { acquireLock(p, 'ab'); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).code).toBe('LOCKED');
    expect((err as NhGateError).message).toContain(`pid ${process.pid}`);
    held.release();
    expect(existsSync(p)).toBe(false);
  });

  it('refuses when another live process holds it', async () => {
    const p = join(dir(), 'gpu.lock');
    const child = spawn('sleep', ['10']);
    try {
      writeFileSync(p, JSON.stringify({ pid: child.pid, host: hostname(), command: 'other', startedAt: 'now' }));
      expect(() => acquireLock(p, 'a3')).toThrow(/held by pid/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('replaces a stale lock whose pid is dead', async () => {
    const p = join(dir(), 'gpu.lock');
    const child = spawn('true');
    await new Promise((r) => child.on('exit', r));
    writeFileSync(p, JSON.stringify({ pid: child.pid, host: hostname(), command: 'crashed', startedAt: 'then' }));
    const held = acquireLock(p, 'a3');
    expect(held.replacedStale?.command).toBe('crashed');
    expect(JSON.parse(readFileSync(p, 'utf8')).pid).toBe(process.pid);
    held.release();
  });

  it('releases the lock however the series ends', async () => {
    const p = join(dir(), 'gpu.lock');
    await expect(withLock(p, 'ab', async () => { throw new Error('leg exploded'); })).rejects.toThrow('leg exploded');
    expect(existsSync(p)).toBe(false);
  });
});

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256, syncTree, writeFresh } from '../../src/mutate/files.js';
import { Journal, processesIn, recoverJournal } from '../../src/mutate/journal.js';

function setup(): { ws: string; file: string } {
  const ws = mkdtempSync(join(tmpdir(), 'nhg-journal-'));
  const file = join(ws, 'tree-0', 'src', 'a.cpp');
  mkdirSync(join(ws, 'tree-0', 'src'), { recursive: true });
  writeFileSync(file, 'original\n');
  return { ws, file };
}

function leave(ws: string, file: string, pid: number): Journal {
  const j = new Journal(join(ws, 'journal.json'));
  j.begin({ tree: 0, mutantId: 'm1', path: file, originalSha: sha256('original\n'), mutantSha: sha256('mutant\n'), original: 'original\n' });
  const doc = JSON.parse(readFileSync(join(ws, 'journal.json'), 'utf8'));
  doc.pid = pid;
  writeFileSync(join(ws, 'journal.json'), JSON.stringify(doc));
  return j;
}

// A pid that existed and has exited (and been reaped).
const deadPid = (): Promise<number> => new Promise((resolve) => {
  const c = spawn('true');
  c.on('exit', () => setTimeout(() => resolve(c.pid!), 20));
});

describe('crash journal', () => {
  it('restores a file that still holds the recorded mutant, with an mtime newer than the mutant', async () => {
    const { ws, file } = setup();
    leave(ws, file, await deadPid());
    writeFileSync(file, 'mutant\n');
    utimesSync(file, 2_000_000_000, 2_000_000_000);
    await new Promise((r) => setTimeout(r, 50));
    const rec = await recoverJournal(join(ws, 'journal.json'), ws, 1);
    expect(rec?.restored).toEqual([file]);
    expect(readFileSync(file, 'utf8')).toBe('original\n');
    expect(statSync(file).mtimeMs).toBeGreaterThan(2_000_000_000 * 1000);
    expect(existsSync(join(ws, 'journal.json'))).toBe(false);
  });

  it('accepts a file already back to the original', async () => {
    const { ws, file } = setup();
    leave(ws, file, await deadPid());
    const rec = await recoverJournal(join(ws, 'journal.json'), ws, 1);
    expect(rec?.alreadyOriginal).toEqual([file]);
  });

  it('refuses, and overwrites nothing, when the file matches neither the mutant nor the original', async () => {
    const { ws, file } = setup();
    leave(ws, file, await deadPid());
    writeFileSync(file, 'hand edit\n');
    await expect(recoverJournal(join(ws, 'journal.json'), ws, 1)).rejects.toThrow(/match neither the recorded mutant nor the original/);
    expect(readFileSync(file, 'utf8')).toBe('hand edit\n');
    expect(existsSync(join(ws, 'journal.json'))).toBe(true);
  });

  it('refuses while the journal owner is alive, and while its processes still run in the workspace', async () => {
    const { ws, file } = setup();
    const sleeper = spawn('sleep', ['30'], { cwd: join(ws, 'tree-0') });
    try {
      leave(ws, file, sleeper.pid!);
      await expect(recoverJournal(join(ws, 'journal.json'), ws, 1)).rejects.toThrow(/is still running/);
      leave(ws, file, await deadPid());
      expect(processesIn(ws)).toContain(sleeper.pid);
      await expect(recoverJournal(join(ws, 'journal.json'), ws, 0.3)).rejects.toThrow(/still run inside/);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});

describe('scratch files', () => {
  it('writeFresh always moves mtime forward, even within one clock tick', () => {
    const { file } = setup();
    utimesSync(file, Date.now() / 1000 + 5, Date.now() / 1000 + 5);
    const before = statSync(file).mtimeMs;
    writeFresh(file, 'x');
    expect(statSync(file).mtimeMs).toBeGreaterThan(before);
  });

  it('syncTree copies changed files, removes extras, keeps unchanged mtimes, skips build dirs', () => {
    const src = mkdtempSync(join(tmpdir(), 'nhg-src-'));
    const dst = mkdtempSync(join(tmpdir(), 'nhg-dst-'));
    mkdirSync(join(src, 'build'), { recursive: true });
    writeFileSync(join(src, 'a.cpp'), 'a');
    writeFileSync(join(src, 'b.cpp'), 'b');
    writeFileSync(join(src, 'build', 'junk.o'), 'o');
    const skip = (rel: string): boolean => rel.startsWith('build');
    expect(syncTree(src, dst, skip)).toEqual({ written: 2, removed: 0 });
    const keep = statSync(join(dst, 'a.cpp')).mtimeMs;
    writeFileSync(join(src, 'b.cpp'), 'B');
    writeFileSync(join(dst, 'extra.cpp'), 'e');
    expect(syncTree(src, dst, skip)).toEqual({ written: 1, removed: 1 });
    expect(statSync(join(dst, 'a.cpp')).mtimeMs).toBe(keep);
    expect(readFileSync(join(dst, 'b.cpp'), 'utf8')).toBe('B');
    expect(existsSync(join(dst, 'build'))).toBe(false);
  });
});

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkResultsBase, pathType, resultsPathProblem, type PathType } from '../../src/results/resultsPaths.js';
import { createRunDir } from '../../src/results/write.js';
import { HARNESS_FILE, judgeUnfinished, LEGACY_AGE_MS, markDeadRuns, NEW_PREFIX, thisHarness } from '../../src/results/deadRuns.js';
import { rethrowDiskFault } from '../../src/io/diskFaults.js';
import { NhGateError } from '../../src/errors.js';

const scratch = (): string => mkdtempSync(join(tmpdir(), 'nh-paths-'));

describe('results paths of the wrong type are refused up front, by path (exit 2), before anything is written', () => {
  const typed = (m: Record<string, PathType>) => (p: string): PathType => m[p] ?? 'missing';

  it('pure: the base, an ancestor of it, runs/ and ledger.jsonl', () => {
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'dir' }))).toBeNull();
    expect(resultsPathProblem('/r', typed({ '/': 'dir' }))).toBeNull();
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'file' }))).toEqual({ path: '/r', message: 'the results directory /r is a file, not a directory: runs/ and ledger.jsonl go under it', fix: 'pass --results-dir DIR naming a directory (one that does not exist yet is made)' });
    expect(resultsPathProblem('/a/b/r', typed({ '/': 'dir', '/a': 'file' }))?.message).toBe('/a is a file, not a directory, so the results directory /a/b/r cannot be made under it: runs/ and ledger.jsonl go under it');
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'other' }))?.message).toBe('the results directory /r is a special file (a socket, a device or a FIFO), not a directory: runs/ and ledger.jsonl go under it');
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'dir', '/r/runs': 'file' }))).toEqual({ path: '/r/runs', message: '/r/runs is a file, not a directory: every run directory goes under it', fix: 'move /r/runs out of the way, or pass --results-dir DIR' });
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'dir', '/r/runs': 'dir', '/r/ledger.jsonl': 'dir' }))).toEqual({ path: '/r/ledger.jsonl', message: '/r/ledger.jsonl is a directory, not a file: each run appends its ledger line to it', fix: 'move /r/ledger.jsonl out of the way, or pass --results-dir DIR' });
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'dir', '/r/ledger.jsonl': 'other' }))?.message).toMatch(/^\/r\/ledger\.jsonl is a special file/);
    expect(resultsPathProblem('/r', typed({ '/': 'dir', '/r': 'dir', '/r/runs': 'dir', '/r/ledger.jsonl': 'file' }))).toBeNull();
  });

  it('on disk: what stat says; a file on the way reads as missing (the walk up names it)', () => {
    const d = scratch();
    writeFileSync(join(d, 'f'), '');
    expect(pathType(d)).toBe('dir');
    expect(pathType(join(d, 'f'))).toBe('file');
    expect(pathType(join(d, 'none'))).toBe('missing');
    expect(pathType(join(d, 'f', 'under'))).toBe('missing');
    expect(pathType('/dev/null')).toBe('other');
  });

  it('createRunDir checks first: nothing is created when a path is wrong', () => {
    const d = scratch();
    writeFileSync(join(d, 'file'), 'x');
    const err = (() => { try { createRunDir(join(d, 'file'), 'g', new Date()); } catch (e) { return e as NhGateError; } return null; })();
    expect(err).toMatchObject({ code: 'WRONG_PATH_TYPE', exitClass: 'usage' });
    expect(err!.message).toBe(`the results directory ${join(d, 'file')} is a file, not a directory: runs/ and ledger.jsonl go under it; nothing was run or written`);
    mkdirSync(join(d, 'r', 'ledger.jsonl'), { recursive: true });
    expect(() => createRunDir(join(d, 'r'), 'g', new Date())).toThrow(expect.objectContaining({ code: 'WRONG_PATH_TYPE' }));
    expect(readdirSync(join(d, 'r'))).toEqual(['ledger.jsonl']);
    expect(() => checkResultsBase(join(d, 'fresh', 'base'))).not.toThrow();
  });

  it('a write that meets a directory (or a file on its path) later is WRONG_PATH_TYPE too, never internal', () => {
    const eisdir = Object.assign(new Error('x'), { code: 'EISDIR' });
    const enotdir = Object.assign(new Error('x'), { code: 'ENOTDIR' });
    expect(() => rethrowDiskFault(eisdir, '/r/ledger.jsonl')).toThrow(expect.objectContaining({ code: 'WRONG_PATH_TYPE', message: 'cannot write /r/ledger.jsonl (EISDIR: it is a directory)' }));
    expect(() => rethrowDiskFault(enotdir, '/r/runs/x')).toThrow(expect.objectContaining({ code: 'WRONG_PATH_TYPE', message: 'cannot write /r/runs/x (ENOTDIR: a folder on its path is a file)' }));
  });
});

describe('a run directory carries its harness from the first instant', () => {
  it('created under a hidden name with the identity inside, then renamed: no run directory without one', () => {
    const d = scratch();
    const now = new Date('2026-12-01T10:00:00Z');
    const a = createRunDir(d, 'my gate', now);
    const b = createRunDir(d, 'my gate', now);
    expect(a).toBe(join(d, 'runs', '20261201T100000Z-my-gate'));
    expect(b).toBe(join(d, 'runs', '20261201T100000Z-my-gate-1'));
    const id = JSON.parse(readFileSync(join(a, HARNESS_FILE), 'utf8'));
    expect(id).toEqual({ schemaVersion: 1, harness: thisHarness(), createdAt: '2026-12-01T10:00:00.000Z' });
    expect(readdirSync(join(d, 'runs')).filter((n) => n.startsWith(NEW_PREFIX))).toEqual([]);
    // An empty directory of the next name (an older nh-gate's, just made) is never renamed over.
    mkdirSync(join(d, 'runs', '20261201T100000Z-my-gate-2'));
    expect(createRunDir(d, 'my gate', now)).toBe(join(d, 'runs', '20261201T100000Z-my-gate-3'));
  });
});

// A pid that is surely gone: a child that has exited (and was reaped).
function deadPid(): number {
  return spawnSync('true').pid!;
}

function runDir(base: string, name: string, files: Record<string, string>, harness: object | null): string {
  const dir = join(base, 'runs', name);
  mkdirSync(dir, { recursive: true });
  if (harness) writeFileSync(join(dir, HARNESS_FILE), JSON.stringify({ schemaVersion: 1, harness, createdAt: 'x' }));
  for (const [f, body] of Object.entries(files)) writeFileSync(join(dir, f), body);
  return dir;
}

describe('dead runs without result.json are settled by the next run', () => {
  const h = { pid: 7, host: 'h', startTicks: 1 };

  it('pure: left while its harness may live; removed when it holds nothing; marked with what it kept', () => {
    expect(judgeUnfinished({ entries: ['.harness.json', '.reserve'], harness: h, dead: false, idleMs: 1e12 })).toEqual({ action: 'leave' });
    expect(judgeUnfinished({ entries: ['.harness.json', '.reserve', 'result.json.tmp-12-34'], harness: h, dead: true, idleMs: 0 })).toEqual({ action: 'remove', why: 'it holds nothing (.harness.json, .reserve, result.json.tmp-12-34): nh-gate pid 7 on h is gone' });
    expect(judgeUnfinished({ entries: [], harness: h, dead: true, idleMs: 0 })).toEqual({ action: 'remove', why: 'it holds nothing (empty): nh-gate pid 7 on h is gone' });
    expect(judgeUnfinished({ entries: ['build.log', '.reserve', 'a.log'], harness: h, dead: true, idleMs: 0 })).toEqual({ action: 'mark', why: 'interrupted before its first leg (harness died): nh-gate pid 7 on h is gone; kept a.log, build.log', kept: ['a.log', 'build.log'] });
    // An older nh-gate's directory names nobody: judged only after a day without change.
    expect(judgeUnfinished({ entries: ['.reserve'], harness: null, dead: false, idleMs: LEGACY_AGE_MS - 1 })).toEqual({ action: 'leave' });
    expect(judgeUnfinished({ entries: ['.reserve'], harness: null, dead: false, idleMs: LEGACY_AGE_MS })).toEqual({ action: 'remove', why: 'it holds nothing (.reserve): no harness recorded (an older nh-gate) and nothing changed for 24 h' });
    expect(LEGACY_AGE_MS).toBe(86_400_000);
  });

  it('on disk: empty ones removed, ones with a build log marked interrupted, live ones and finished ones left', () => {
    const base = scratch();
    const host = hostname();
    const dead = { pid: deadPid(), host, startTicks: null };
    const empty = runDir(base, '20261201T000001Z-a', { '.reserve': 'x'.repeat(1024) }, dead);
    const built = runDir(base, '20261201T000002Z-b', { '.reserve': 'x', 'build.log': 'cmake …\n' }, dead);
    const live = runDir(base, '20261201T000003Z-c', { '.reserve': 'x' }, thisHarness());
    const other = runDir(base, '20261201T000004Z-d', { '.reserve': 'x' }, { ...dead, host: `${host}-other` });
    const done = runDir(base, '20261201T000005Z-e', { 'result.json': JSON.stringify({ status: 'complete' }) }, dead);
    const legacyOld = runDir(base, '20261201T000006Z-f', { '.reserve': 'x' }, null);
    const old = new Date(Date.now() - LEGACY_AGE_MS - 60_000);
    for (const p of [join(legacyOld, '.reserve'), legacyOld]) utimesSync(p, old, old);
    const legacyNew = runDir(base, '20261201T000007Z-g', { '.reserve': 'x' }, null);
    const halfMade = join(base, 'runs', `${NEW_PREFIX}${dead.pid}-1-0`);
    mkdirSync(halfMade);
    writeFileSync(join(halfMade, HARNESS_FILE), JSON.stringify({ harness: dead }));
    writeFileSync(join(base, 'runs', 'stray-file'), '');

    const notes = markDeadRuns(base, live);
    expect(notes).toEqual([
      `removed ${empty}: it holds nothing (.harness.json, .reserve): nh-gate pid ${dead.pid} on ${host} is gone`,
      `marked ${built} interrupted before its first leg (harness died): nh-gate pid ${dead.pid} on ${host} is gone; kept build.log`,
      `removed ${legacyOld}: it holds nothing (.reserve): no harness recorded (an older nh-gate) and nothing changed for 24 h`,
    ]);
    expect(existsSync(empty)).toBe(false);
    expect(existsSync(halfMade)).toBe(false);
    const marked = JSON.parse(readFileSync(join(built, 'result.json'), 'utf8'));
    expect(marked).toMatchObject({ status: 'interrupted', legs: [], harness: dead, verdict: { word: 'VOID', exitClass: 'void' } });
    expect(`${marked.verdict.reasons[0].code}: ${marked.verdict.reasons[0].message}`).toMatch(/^HARNESS_DIED: interrupted before its first leg/);
    expect(readdirSync(built).sort()).toEqual(['.harness.json', 'build.log', 'result.json']);
    for (const kept of [live, other, done, legacyNew]) expect(existsSync(kept)).toBe(true);
    expect(existsSync(join(live, 'result.json'))).toBe(false);
    // Settled once: the next run finds nothing more to do.
    expect(markDeadRuns(base, null)).toEqual([]);
  });

  it('a "running" result of a dead harness is marked, its reserve freed; no runs/ at all is nothing to do', () => {
    const base = scratch();
    const dead = { pid: deadPid(), host: hostname(), startTicks: null };
    const dir = runDir(base, '20261201T000001Z-a', { '.reserve': 'x', 'result.json': JSON.stringify({ status: 'running', harness: dead, legs: [{}], notes: [], verdict: { word: 'VOID', reasons: ['not finished'] } }) }, null);
    expect(markDeadRuns(base)).toEqual([`marked ${dir} interrupted (harness died): nh-gate pid ${dead.pid} on ${dead.host} is gone; 1 finished leg(s) kept`]);
    expect(existsSync(join(dir, '.reserve'))).toBe(false);
    expect(markDeadRuns(join(base, 'nothing-here'))).toEqual([]);
  });
});

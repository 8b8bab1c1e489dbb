import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fileSha } from '../../src/mutate/files.js';
import { processesIn } from '../../src/mutate/journal.js';
import { ensureDist, gitStatus, makeRepo, readResult, runMutateCli, waitFor, type FixtureRepo } from './helpers.js';

// Crash safety with REAL signals: the CLI is killed while a mutant sits in a scratch file.
let repo: FixtureRepo;
const ws = (): string => join(repo.root, '.nh-gate', 'mutate', 'mutfix');
const journal = (): string => join(ws(), 'journal.json');
const scratch = (): string => join(ws(), 'tree-0', 'engine', 'src', 'calc.cpp');
const userFile = (): string => join(repo.root, 'engine', 'src', 'calc.cpp');

beforeAll(() => {
  ensureDist();
  repo = makeRepo();
});

// Resolves once the journal is on disk AND the scratch file holds the mutant it records (mid-mutant).
async function midMutant(id: string): Promise<string> {
  let mutantSha = '';
  await waitFor(() => {
    try {
      const j = JSON.parse(readFileSync(journal(), 'utf8')) as { entries: { mutantId: string; mutantSha: string }[] };
      mutantSha = j.entries.find((e) => e.mutantId === id)?.mutantSha ?? '';
      return mutantSha !== '' && fileSha(scratch()) === mutantSha;
    } catch {
      return false;
    }
  }, 90_000, 'a mutant in the scratch tree');
  return mutantSha;
}

describe('crash safety', () => {
  it('SIGTERM mid-mutant restores the scratch file, keeps finished rows, exits 3', async () => {
    let mutantSha = '';
    const run = await runMutateCli(repo.root, ['--only', 'group-clamp'], (child) => {
      void midMutant('group-clamp').then((sha) => { mutantSha = sha; child.kill('SIGTERM'); });
    });
    expect(mutantSha).not.toBe('');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/SIGTERM: stopping/);
    expect(existsSync(journal())).toBe(false);
    expect(fileSha(scratch())).toBe(fileSha(userFile()));
    const res = readResult(repo.root);
    expect(res.interrupted).toBe(true);
    expect(res.rows.map((r) => `${r.id}:${r.verdict}${r.reason ? ` ${r.reason}` : ''}`)).toEqual(['self-add:CAUGHT', 'group-clamp:VOID INTERRUPTED']);
    expect(gitStatus(repo.root)).toBe('');
  });

  it('SIGKILL mid-mutant leaves a journal; the next start restores it and runs clean', async () => {
    let mutantSha = '';
    const killed = await runMutateCli(repo.root, ['--only', 'group-clamp'], (child) => {
      void midMutant('self-add').then((sha) => { mutantSha = sha; child.kill('SIGKILL'); });
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(existsSync(journal())).toBe(true);
    expect(fileSha(scratch())).toBe(mutantSha); // the mutant is still in the scratch copy …
    expect(fileSha(userFile())).not.toBe(mutantSha); // … and never in the user's tree
    expect(gitStatus(repo.root)).toBe('');

    const again = await runMutateCli(repo.root, ['--only', 'group-clamp']);
    expect(again.stdout).toMatch(/recovered a leftover journal of pid \d+: restored 1 scratch file/);
    expect(again.code).toBe(0);
    expect(readResult(repo.root).rows.map((r) => `${r.id}:${r.verdict}`)).toEqual(['self-add:CAUGHT', 'group-clamp:CAUGHT']);
    expect(existsSync(journal())).toBe(false);
    expect(fileSha(scratch())).toBe(fileSha(userFile()));
    expect(processesIn(ws())).toEqual([]);
    expect(gitStatus(repo.root)).toBe('');
  });
});

import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { NhGateError } from '../errors.js';
import type { Executor } from '../exec/types.js';
import { exitedCleanly } from '../exec/types.js';

// Git for the cross-commit A/B: a revision to its commit sha, and a detached worktree per commit, so
// each side builds from its own tree and the user's checkout is never touched.

async function git(exec: Executor, cwd: string, args: string[]): Promise<{ ok: boolean; out: string }> {
  const run = await exec.run({ argv: ['git', '-C', cwd, ...args], timeoutS: 120 });
  return { ok: exitedCleanly(run), out: run.lines.map((l) => l.text).join('\n').trim() };
}

// The top of the git repository holding the recipe root, or a usage error saying there is none.
export async function gitTop(exec: Executor, root: string): Promise<string> {
  const r = await git(exec, root, ['rev-parse', '--show-toplevel']);
  if (!r.ok) throw new NhGateError('BAD_INPUT', `the recipe root ${root} is not inside a git repository (${r.out.split('\n').at(-1)})`, 'a cross-commit A/B builds two commits of the engine\'s repository: run it where the recipe lives in git');
  return r.out.split('\n').at(-1)!;
}

// A revision (branch, tag, HEAD~2, sha) to the full commit sha, or a usage error naming the flag.
export async function resolveRev(exec: Executor, top: string, flag: '--base' | '--head', rev: string): Promise<string> {
  const r = await git(exec, top, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  const sha = r.out.split('\n').at(-1) ?? '';
  if (!r.ok || !/^[0-9a-f]{40,64}$/.test(sha)) throw new NhGateError('USAGE', `${flag} ${rev} is not a commit in ${top}`, 'pass a branch, tag or sha that `git rev-parse` knows');
  return sha;
}

// A detached worktree of `sha` under `dir` (reused when it is already there at that commit).
export async function ensureWorktree(exec: Executor, top: string, sha: string, dir: string): Promise<string> {
  const path = join(dir, sha.slice(0, 12));
  if (existsSync(path)) {
    const head = await git(exec, path, ['rev-parse', 'HEAD']);
    if (head.ok && head.out.split('\n').at(-1) === sha) return path;
    throw new NhGateError('BAD_INPUT', `${path} exists but is not a worktree at ${sha}`, `remove it (git -C ${top} worktree remove --force ${path}) and run again`);
  }
  const r = await git(exec, top, ['worktree', 'add', '--detach', path, sha]);
  if (!r.ok) throw new NhGateError('BAD_INPUT', `git worktree add ${path} ${sha} failed: ${r.out.split('\n').slice(-2).join(' ')}`, 'check the repository, disk space and that the commit exists');
  return path;
}

// Where the recipe root sits inside a worktree of its repository.
export function rootInTree(top: string, root: string, tree: string): string {
  return join(tree, relative(top, root));
}

// --base/--head resolved in the repository that holds the recipe root; one commit under two names is refused.
export async function resolveCommits(exec: Executor, root: string, base: string, head: string): Promise<{ top: string; base: { rev: string; commit: string }; head: { rev: string; commit: string } }> {
  const top = await gitTop(exec, root);
  const b = { rev: base, commit: await resolveRev(exec, top, '--base', base) };
  const h = { rev: head, commit: await resolveRev(exec, top, '--head', head) };
  if (b.commit === h.commit) throw new NhGateError('USAGE', `--base ${base} and --head ${head} are the same commit ${b.commit}`, 'a cross-commit A/B compares two commits; for one binary under a flag use --flag');
  return { top, base: b, head: h };
}

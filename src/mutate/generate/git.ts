import { execFileSync } from 'node:child_process';
import { NhGateError } from '../../errors.js';
import { parseZeroContextDiff, type ChangedFile } from './hunks.js';

function gitOut(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
}

// The changed lines between REV and the working tree, paths relative to root (git diff --relative).
// A REV git does not know is a usage error naming it, checked before any diff is read.
export function changedLinesSince(rev: string, root: string): { files: ChangedFile[]; allFiles: string[] } {
  try {
    gitOut(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], root);
  } catch {
    throw new NhGateError('USAGE', `--in-diff ${rev}: not a revision git knows in ${root}`, 'pass a commit, branch or tag (e.g. HEAD~1, origin/main) from inside the repository');
  }
  try {
    const base = ['diff', '--no-color', '--no-ext-diff', '--no-renames', '--relative'];
    const diff = gitOut([...base, '-U0', rev, '--'], root);
    const names = gitOut([...base, '--name-only', rev, '--'], root);
    return { files: parseZeroContextDiff(diff), allFiles: names.split('\n').map((l) => l.trim()).filter(Boolean) };
  } catch (err) {
    const first = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new NhGateError('USAGE', `--in-diff ${rev}: git diff failed in ${root} (${first})`, 'run from inside the repository, with a revision git knows');
  }
}

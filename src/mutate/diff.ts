import { execFileSync } from 'node:child_process';
import { NhGateError } from '../errors.js';

// --in-diff REF: the repository-relative paths that differ between REF and the working tree (git diff),
// so a change only pays for the mutants of the files it touched.
export function changedFilesSince(ref: string, root: string): Set<string> {
  try {
    const out = execFileSync('git', ['diff', '--name-only', '--no-renames', ref, '--'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return new Set(out.split('\n').map((l) => l.trim()).filter(Boolean));
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new NhGateError('USAGE', `--in-diff ${ref}: git diff failed in ${root} (${stderr})`, 'pass a ref git knows (a branch, tag or commit), from inside the repository');
  }
}

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, type FixtureRepo } from './helpers.js';

// Shared by the --in-diff fixture tests and the docs examples test.
export const git = (root: string, ...a: string[]): string => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...a], { cwd: root, encoding: 'utf8' });

// The planted change: window_sum's loop rewritten (tested by "window covers k values"), plus an untested
// helper whose 10-line body occurs twice, so its middle lines have no unique anchor.
const BODY = ['  int s = 0;', '  s += 1;', '  s += 2;', '  s += 3;', '  s += n;', '  s += 4;', '  s += 5;', '  s += 6;', '  s += 7;', '  return s;'].join('\n');
export function plant(r: FixtureRepo): void {
  const f = join(r.root, 'engine', 'src', 'window.cpp');
  const text = readFileSync(f, 'utf8')
    .replace('  for (int i = n - k; i < n; ++i) s += (i >= 0 ? xs[i] : 0);', '  const int first = n - k;\n  for (int i = first; i < n; ++i) {\n    if (i >= 0) s += xs[i];\n  }');
  writeFileSync(f, `${text}\nint pad_a(int n) {\n${BODY}\n}\n\nint pad_b(int n) {\n${BODY}\n}\n`);
  git(r.root, 'commit', '-qam', 'planted');
}


// A fixture repository with an in-diff.json (window.cpp → the window* cases, caps 2 per line, 12 per
// change) committed, then the planted commit on top: `--in-diff HEAD~1` sees only the planted change.
export function plantedFixture(): FixtureRepo {
  const repo = makeRepo();
  writeFileSync(join(repo.root, 'gates', 'in-diff.json'), JSON.stringify({
    schemaVersion: 1, recipe: 'mutfix', perLineCap: 2, perChangeCap: 12,
    routes: [{ files: 'engine/src/window.cpp', suite: 'calc', filter: 'window*' }],
  }));
  git(repo.root, 'add', '-A');
  git(repo.root, 'commit', '-qm', 'in-diff config');
  plant(repo);
  return repo;
}

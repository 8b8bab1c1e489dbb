import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalPath } from '../../src/io/canonical.js';
import { buildVars } from '../../src/build/build.js';
import type { Recipe } from '../../src/config/recipe.js';

// A worktree reaches the shared llama.cpp build through a `.cache` symlink; handing CMake that spelling
// regenerated every compile line and rebuilt the shared tree in place. One spelling: the resolved one.
describe('canonicalPath', () => {
  const real = realpathSync(mkdtempSync(join(tmpdir(), 'nh-canon-')));
  mkdirSync(join(real, 'target', 'build'), { recursive: true });
  const other = realpathSync(mkdtempSync(join(tmpdir(), 'nh-canon-link-')));
  symlinkSync(join(real, 'target'), join(other, '.cache'));

  it('resolves symlinks in the part that exists and keeps the rest as written', () => {
    expect(canonicalPath(join(other, '.cache', 'build'))).toBe(join(real, 'target', 'build'));
    expect(canonicalPath(join(other, '.cache', 'not-yet', 'deeper'))).toBe(join(real, 'target', 'not-yet', 'deeper'));
    expect(canonicalPath('/')).toBe('/');
  });

  it('a recipe\'s sourceDir and buildDir reach CMake resolved', () => {
    const v = buildVars({ sourceDir: '.cache/src', buildDir: '.cache/build-{arch}' } as Recipe, other, 'cpu', 1, other);
    expect(v.sourceDir).toBe(join(real, 'target', 'src'));
    expect(v.buildDir).toBe(join(real, 'target', 'build-cpu'));
  });
});

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { candidates, locate } from '../../src/config/locate.js';
import { loadInputs } from '../../src/gates/setup.js';
import { NhGateError } from '../../src/errors.js';

const ROOT = resolve(import.meta.dirname, '../..');

// A user's own project beside nh-gate: recipes/, gates/<engine>/, goldens/ of its own.
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-locate-'));
  for (const d of ['recipes', 'gates/mine', 'goldens/g-mine']) mkdirSync(join(dir, d), { recursive: true });
  const r = JSON.parse(readFileSync(join(ROOT, 'recipes', 'nh-ref.json'), 'utf8'));
  r.name = 'mine';
  r.sourceDir = join(ROOT, 'native', 'engine');
  r.defaultGolden = 'g-mine';
  writeFileSync(join(dir, 'recipes', 'mine.json'), JSON.stringify(r));
  writeFileSync(join(dir, 'goldens', 'g-mine', 'golden.json'), readFileSync(join(ROOT, 'goldens', 'nh-ref-tiny', 'golden.json')));
  writeFileSync(join(dir, 'gates', 'mine', 'a3.json'), JSON.stringify({ schemaVersion: 1, kind: 'a3', name: 'mine-a3', recipe: 'mine' }));
  return dir;
}

describe('one path rule', () => {
  it('a name: beside the naming file, then the project, then the built-ins, in that order', () => {
    const p = { namedIn: '/p/gates/x', roots: ['/p'], pkg: '/pkg' };
    expect(candidates('recipes', 'r', p)).toEqual(['/p/gates/x/r.json', '/p/gates/recipes/r.json', '/p/recipes/r.json', '/pkg/recipes/r.json']);
    expect(candidates('goldens', 'g', { ...p, namedIn: null })).toEqual(['/p/goldens/g/golden.json', '/pkg/goldens/g/golden.json']);
    expect(locate('recipes', 'sub/r.json', p)).toBe('/p/gates/x/sub/r.json');
    expect(locate('recipes', 'sub/r.json', { ...p, namedIn: null })).toBe('/p/sub/r.json');
  });

  it('a gate in a project outside nh-gate finds its recipe and golden by name, from any working directory', () => {
    const dir = project();
    const i = loadInputs({ command: 'a3', gate: join(dir, 'gates', 'mine', 'a3.json') }, tmpdir());
    expect(i.recipePath).toBe(join(dir, 'recipes', 'mine.json'));
    expect(i.goldenPath).toBe(join(dir, 'goldens', 'g-mine', 'golden.json'));
    // the built-ins stay reachable by name from the project
    expect(loadInputs({ command: 'a3', recipe: 'nh-ref' }, dir).recipe.name).toBe('nh-ref');
  });

  it('a name found nowhere lists every place it looked, exit 2', () => {
    const dir = project();
    writeFileSync(join(dir, 'gates', 'mine', 'bad.json'), JSON.stringify({ schemaVersion: 1, kind: 'a3', name: 'bad', recipe: 'nope' }));
    let err: unknown = null;
    try {
      loadInputs({ command: 'a3', gate: join(dir, 'gates', 'mine', 'bad.json') }, dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).exitClass).toBe('usage');
    expect((err as Error).message).toMatch(new RegExp(`no recipe named 'nope' \\(named in ${join(dir, 'gates', 'mine')}\\); looked in: .*${join(dir, 'recipes')}.*${join(ROOT, 'recipes')}`));
  });

  it('validate with no arguments validates the working directory\'s project', () => {
    const dir = project();
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'nh-gate.js'), 'validate'], { cwd: dir, encoding: 'utf8' });
    expect(r.stdout).toMatch(/ok recipes\/mine\.json \(recipe\)/);
    expect(r.stdout).toMatch(/ok gates\/mine\/a3\.json \(gate\)/);
    expect(r.stdout).toMatch(/3 of 3 file\(s\) valid/);
    expect(r.status).toBe(0);
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { RecipeSchema } from '../../src/config/recipe.js';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';

const recipe = RecipeSchema.parse(JSON.parse(readFileSync(path.join(repoRoot, 'recipes', 'nh-ref.json'), 'utf8')));

describe('recipes/nh-ref.json describes the engine that is actually built', () => {
  it('names the flags the driver reads, with values it accepts', async () => {
    const e = await ensureEngineBuilt();
    const ckpt = await e.checkpoint('tiny');
    expect(Object.keys(recipe.flags).sort()).toEqual(['DEVICE_MAMBA', 'MAMBA_DECODE_STEP']);
    for (const [name, flag] of Object.entries(recipe.flags)) {
      for (const value of [flag.on, flag.off ?? '']) {
        const run = await execa(e.driver, ['--checkpoint', ckpt, '--load-only'], { env: { [flag.env]: value }, reject: false, all: true });
        // DEVICE_MAMBA on is refused by name on this CPU build; every other value loads.
        const refused = name === 'DEVICE_MAMBA' && value === flag.on;
        expect(run.exitCode, `${flag.env}=${value}: ${run.all}`).toBe(refused ? 2 : 0);
        expect(run.all).toContain(refused ? 'built without CUDA' : `${name}=${value}`);
      }
    }
    expect(recipe.flags['DEVICE_MAMBA']!.deviceArm).toBe(true);
  });

  it('every required cell is a cell the configure feature table prints', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nh-ref-cfg-'));
    try {
      const cfg = await execa('cmake', ['-S', path.join(repoRoot, recipe.sourceDir), '-B', dir, '-G', 'Ninja', '-DNH_REF_TESTS=OFF'], { all: true });
      const cells = [...(cfg.all ?? '').matchAll(/^--\s+nh-ref feature ([\w.+-]+): (ENABLED|DISABLED)(.*)$/gm)];
      expect(cells.length).toBeGreaterThan(0);
      for (const c of cells) expect(c[3]).toBe(' (NH_REF_CUDA=OFF)');
      const names = new Set(cells.map((c) => c[1]));
      const required = new Set([...Object.values(recipe.archs).flatMap((a) => a.requiredCells), ...recipe.flags['DEVICE_MAMBA']!.requiresCells]);
      for (const cell of required) expect(names.has(cell), cell).toBe(true);
      expect(recipe.archs['cpu']!.requiredCells).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the suite's gpuCases are real case names of nh-ref-tests", async () => {
    const e = await ensureEngineBuilt();
    const list = (await execa(e.tests, ['--list-test-cases'], { all: true })).all ?? '';
    const suite = recipe.suites.find((s) => s.name === 'nh-ref-tests')!;
    expect(suite.gpuCases.length).toBe(4);
    for (const name of suite.gpuCases) expect(list).toContain(name);
    expect(recipe.defaultGolden).toBe('nh-ref-tiny');
  });
});

describe('recipes/nh-ref-medium.json is the same engine on another preset', () => {
  it('differs from nh-ref.json only in its name, description, checkpoint preparation, driver checkpoint/preset and default golden', () => {
    const medium = RecipeSchema.parse(JSON.parse(readFileSync(path.join(repoRoot, 'recipes', 'nh-ref-medium.json'), 'utf8')));
    const strip = (r: typeof recipe) => {
      const { name: _n, description: _d, prepare: _p, defaultGolden: _g, driver, ...rest } = r;
      const { argv: _a, ...driverRest } = driver;
      return { ...rest, driver: driverRest };
    };
    expect(strip(medium)).toEqual(strip(recipe));
    expect(medium.driver.argv).toEqual(recipe.driver.argv.map((a) => a.replace('tiny', 'medium')));
    expect(medium.prepare).toEqual(recipe.prepare.map((argv) => argv.map((a) => a.replace('tiny', 'medium'))));
    expect(medium.defaultGolden).toBe('nh-ref-medium');
  });
});

describe('recipes/nh-ref-long.json is the medium recipe against the long golden', () => {
  it('differs from nh-ref-medium.json only in its name, description and default golden', () => {
    const read = (f: string) => RecipeSchema.parse(JSON.parse(readFileSync(path.join(repoRoot, 'recipes', f), 'utf8')));
    const strip = (r: ReturnType<typeof read>) => {
      const { name: _n, description: _d, defaultGolden: _g, ...rest } = r;
      return rest;
    };
    const long = read('nh-ref-long.json');
    expect(strip(long)).toEqual(strip(read('nh-ref-medium.json')));
    expect(long.defaultGolden).toBe('nh-ref-long');
  });
});

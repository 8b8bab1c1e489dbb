import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { legBlock } from '../../src/gates/ab/blocks.js';
import { planSweep } from '../../src/plan/sweep.js';
import { planAb } from '../../src/plan/plan.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { loadInputs } from '../../src/gates/setup.js';
import { planSweepForm, runSweepPlan } from '../../src/gates/ab/sweep.js';
import type { LegSite } from '../../src/gates/leg/legRunner.js';
import { scriptedDeps, scriptedRepo } from '../gates/scripted.js';

// `jobPer: block` takes one Slurm allocation per block of the design. A sweep's block is every arm once (N legs
// of its Williams square), not the A/B's ABBA block of 4: with 3 arms, blocks of 4 would put the first leg of
// block 2 into block 1's allocation and size each allocation's --time for the wrong number of legs.

const recipe = RecipeSchema.parse({
  schemaVersion: 1, name: 'r-sweep', profile: 'nh-ref', sourceDir: '.', buildDir: 'b-{arch}',
  configure: ['true'], build: ['true'], driver: { argv: ['true'], binary: 'x', env: {} },
  flags: { THREADS: { env: 'T_THREADS', on: '2', off: '1', values: ['1', '2', '4', '8'], default: '2' } },
});

// Where each planned leg sits among the blocks, as the series tells the executor.
const sites = (p: { legs: unknown[]; blockLegs?: number }, warmupLegs: number) => p.legs.map((_, i) => legBlock(i, warmupLegs, p.legs.length, p.blockLegs));

describe('the block of a plan (the scope of a jobPer block allocation)', () => {
  it('a sweep of 3 arms: blocks of 3 legs, one per Williams row; warm-ups join the first', () => {
    const d = planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4'], blocks: 3, mode: 'decode', warmupLegs: 0 });
    expect(d.plan.blockLegs).toBe(3);
    expect(sites(d.plan, 0)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2].map((block) => ({ block, blockLegs: 3 })));
    // Each block's legs are one Williams row: every arm once.
    const blocks = [0, 1, 2].map((b) => d.plan.legs.filter((_, i) => sites(d.plan, 0)[i]!.block === b).map((l) => l.arm).sort());
    for (const arms of blocks) expect(arms).toEqual(['THREADS=1', 'THREADS=2', 'THREADS=4']);
    const warm = planSweep({ recipe, gate: null, flag: 'THREADS', values: ['1', '2', '4', '8'], blocks: 2, mode: 'decode', warmupLegs: 2 });
    expect(sites(warm.plan, 2).map((s) => s.block)).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(sites(warm.plan, 2).map((s) => s.blockLegs)).toEqual([6, 6, 6, 6, 6, 6, 4, 4, 4, 4]);
  });

  it('an A/B keeps its ABBA block of 4', () => {
    const p = planAb({ recipe, gate: null, flag: 'THREADS', repeats: 4, order: 'abba', seed: 1, mode: 'decode' });
    expect(sites(p, 0)).toEqual([0, 0, 0, 0, 1, 1, 1, 1].map((block) => ({ block, blockLegs: 4 })));
  });
});

describe('a sweep through the one series tells the executor its blocks', () => {
  it('3 arms × 2 blocks: each leg\'s site names its Williams block and 3 legs in it', async () => {
    const repo = scriptedRepo();
    const r = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
    r.flags.THREADS = { env: 'FAKE_THREADS', on: '2', off: '1', values: ['1', '2', '4'], default: '2' };
    writeFileSync(repo.recipePath, JSON.stringify(r, null, 2));
    const base = mkdtempSync(join(tmpdir(), 'nh-sweep-blocks-'));
    process.env.NH_GATE_LOCK = join(base, 'gpu.lock');
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, flag: 'THREADS', flagOptional: false }, repo.root);
    const plan = planSweepForm({ stop: 'fixed', inputs, resultsBase: base, values: ['1', '2', '4'], cli: { repeats: 2 } });
    const deps = await scriptedDeps((req) => ({ perTokenS: 0.01 * Number(req.env.FAKE_THREADS ?? 1) }));
    const seen: Array<Pick<LegSite, 'block' | 'blockLegs'>> = [];
    const runner = deps.legRunner!;
    const out = await runSweepPlan(plan, { argv: [], inputs, jobs: 1, resultsBase: base }, { ...deps, legRunner: { ...runner, run: (req, site) => { seen.push({ block: site.block, blockLegs: site.blockLegs }); return runner.run(req, site); } } });
    expect(out.result.legs).toHaveLength(6);
    expect(seen).toEqual([0, 0, 0, 1, 1, 1].map((block) => ({ block, blockLegs: 3 })));
  });
});

import { describe, expect, it } from 'vitest';
import { checkArch } from '../../src/gates/arch.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { H200 } from './fake.js';
import type { Silicon } from '../../src/silicon/types.js';

const recipe = RecipeSchema.parse({ schemaVersion: 1, name: 'r', profile: 'nh-ref', sourceDir: '.', buildDir: 'b', configure: ['true'], build: ['true'], driver: { argv: ['x'], binary: 'x' }, archs: { cpu: {}, '90': {}, '121a': {} } });
const noGpu: Silicon = { ...H200, kind: 'cpu-only', gpuName: null, uuid: null, computeCapability: null, smArch: null, archTarget: null, cpuModel: 'AMD EPYC', source: 'none' };

describe('--arch is a claim checked against the silicon', () => {
  it('121a on an sm_90 host is no such silicon, by name', () => {
    const c = checkArch('121a', H200, recipe);
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.message).toMatch(/claims compute capability 12\.1, but this host has NVIDIA H200 \(compute capability 9\.0, sm_90\)/);
  });

  it('121a on a host without a GPU is no such silicon, never a CPU run', () => {
    const c = checkArch('121a', noGpu, recipe);
    expect(c).toMatchObject({ ok: false });
    if (!c.ok) expect(c.message).toMatch(/no GPU \(CPU AMD EPYC\)/);
  });

  it('90 and 90a on an H200 are honoured; cpu is always a valid claim', () => {
    expect(checkArch('90', H200, recipe)).toMatchObject({ ok: true, arch: '90' });
    expect(checkArch('90a', H200, recipe)).toMatchObject({ ok: true, arch: '90a' });
    expect(checkArch('cpu', H200, recipe)).toMatchObject({ ok: true, arch: 'cpu' });
  });

  it('defaults to cpu without a GPU, and to the host arch the recipe builds on a GPU', () => {
    expect(checkArch(undefined, noGpu, recipe)).toMatchObject({ ok: true, arch: 'cpu' });
    expect(checkArch(undefined, H200, recipe)).toMatchObject({ ok: true, arch: '90' });
  });

  it('an unparseable claim is a usage error, not a void', () => {
    expect(checkArch('banana', H200, recipe)).toMatchObject({ ok: false, usage: true });
  });
});

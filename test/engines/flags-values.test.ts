import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { loadRecipe } from '../../src/config/load.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { planAb, describePlan } from '../../src/plan/plan.js';
import { parseFlagSpec, resolveArmValue } from '../../src/plan/flagArms.js';
import { NhGateError } from '../../src/errors.js';

const ROOT = resolve(import.meta.dirname, '../..');
const { recipe } = loadRecipe('llama-cpp', ROOT);
const plan = (flag: string, arms?: { A: string; B: string }) => planAb({ recipe, gate: null, flag, repeats: 1, order: 'abba', seed: 1, mode: 'decode', ...(arms ? { armValues: arms } : {}) });

describe('flags with values', () => {
  it('--flag THREADS=1,2 runs arm A with one thread and arm B with two', () => {
    const spec = parseFlagSpec('THREADS=1,2');
    expect(spec).toEqual({ name: 'THREADS', arms: { A: '1', B: '2' }, sweep: null });
    const p = plan(spec.name, spec.arms!);
    expect(p.arms!.A.env.LLAMA_ARG_THREADS).toBe('1');
    expect(p.arms!.B.env.LLAMA_ARG_THREADS).toBe('2');
    expect(describePlan(p)).toContain('arm A (THREADS=1) environment: LLAMA_ARG_THREADS=1');
  });

  it('default is honoured: THREADS=default,4 resolves to the declared default', () => {
    const p = plan('THREADS', { A: 'default', B: '4' });
    expect(p.arms!.A.env.LLAMA_ARG_THREADS).toBe('2');
    expect(p.arms!.A.valueLabel).toBe('default (2)');
  });

  it('an arm may leave its variable unset: NO_CUDA_GRAPHS off is absent, not "0"', () => {
    const p = plan('NO_CUDA_GRAPHS');
    expect('GGML_CUDA_DISABLE_GRAPHS' in p.arms!.A.env).toBe(false);
    expect(p.arms!.A.unset).toEqual(['GGML_CUDA_DISABLE_GRAPHS']);
    expect(p.legs.find((l) => l.arm === 'A')!.unset).toEqual(['GGML_CUDA_DISABLE_GRAPHS']);
    expect(p.arms!.B.env.GGML_CUDA_DISABLE_GRAPHS).toBe('1');
    expect(describePlan(p)).toContain('arm A (NO_CUDA_GRAPHS=off) environment: GGML_CUDA_DISABLE_GRAPHS UNSET');
  });

  it('a value the recipe does not declare is a usage error (exit 2) that lists the declared ones', () => {
    expect(() => plan('THREADS', { A: '1', B: '3' })).toThrow(NhGateError);
    try {
      resolveArmValue(recipe, 'THREADS', recipe.flags.THREADS!, '3');
    } catch (err) {
      expect((err as NhGateError).code).toBe('UNKNOWN_FLAG');
      expect((err as Error).message).toMatch(/does not declare the value '3'/);
      expect((err as NhGateError).hint).toMatch(/on, off, default, 1, 2, 4/);
    }
    expect(() => parseFlagSpec('THREADS=1')).toThrow(/an A\/B takes two values and a sweep three or more/);
  });

  it('a recipe whose flag default is not on, off or a declared value does not validate', () => {
    const bad = RecipeSchema.safeParse({
      schemaVersion: 1, name: 'x', profile: 'nh-ref', sourceDir: '.', buildDir: 'b', configure: ['true'], build: ['true'], driver: { argv: ['true'], binary: 'x' },
      flags: { T: { env: 'T', on: '2', off: '1', values: ['1', '2'], default: '3' } },
    });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toMatch(/default must be on, off or one of the declared values/);
  });
});

import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGate, loadGolden, loadRecipe, readSamplesFile } from '../../src/config/load.js';
import { sha256 } from '../../src/io/hash.js';
import { classify, collectFiles, validateFile } from '../../src/config/validate.js';
import { NhGateError } from '../../src/errors.js';

const ROOT = resolve(import.meta.dirname, '../..');

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'nhg-cfg-'));
}

function code(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof NhGateError ? e.code : `not NhGateError: ${String(e)}`;
  }
}

describe('recipes', () => {
  it('the shipped nemotron-h recipe states the seeds facts', () => {
    const { recipe, sha256: sum } = loadRecipe('nemotron-h', ROOT);
    expect(sum).toMatch(/^[0-9a-f]{64}$/);
    expect(recipe.profile).toBe('nemotron-h');
    expect(recipe.configure).toEqual(expect.arrayContaining(['-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']));
    for (const arch of ['121a', '110']) expect(recipe.archs[arch]?.configureArgv).toEqual(['-DVLLM_CPP_CUDA=ON', '-DVLLM_CPP_CUDA_ARCHITECTURES={arch}', '-DVLLM_CPP_CUTLASS_DIR={sourceDir}/third_party/cutlass']);
    expect(recipe.archs['121a']?.requiredCells).toEqual(['fp4-mma', 'cutlass-nvfp4', 'cutlass-fp8', 'marlin-nvfp4', 'fa2']);
    // A host build: no CUDA, and gcc 12's -Werror=volatile on the C++20 tree kept a warning (docs/recipes/nemotron-h.md).
    expect(recipe.archs.cpu).toEqual({ configureArgv: ['-DVLLM_CPP_CUDA=OFF', '-DCMAKE_CXX_FLAGS=-Wno-error=volatile'], requiredCells: [] });
    expect(recipe.flags.DEVICE_MAMBA?.env).toBe('VT_NEMOTRON_H_DEVICE_MAMBA');
    // nemotron_h_device.cpp @ d1591074: the device Mamba arm is on unless VT_NEMOTRON_H_DEVICE_MAMBA starts with 0.
    expect(recipe.flags.DEVICE_MAMBA?.default).toBe('on');
    expect(recipe.flags.MAMBA_DECODE_STEP?.env).toBe('VT_NEMOTRON_H_MAMBA_DECODE_STEP');
    expect(recipe.baselines.map((b) => [b.quantity, b.value, b.unit, b.arch])).toEqual([
      ['perOutputToken', 0.014369, 's', '121a'],
      ['busyFraction', 6.31, '%', '121a'],
    ]);
  });

  it('an unknown recipe is UNKNOWN_RECIPE listing the known ones', () => {
    try {
      loadRecipe('llama', ROOT);
      expect.unreachable();
    } catch (e) {
      expect((e as NhGateError).code).toBe('UNKNOWN_RECIPE');
      expect((e as NhGateError).message).toMatch(/known: .*nemotron-h/);
      expect((e as NhGateError).exitClass).toBe('usage');
    }
  });

  it('a wrong field is BAD_CONFIG with file: path.to.field: message', () => {
    const d = tmp();
    const f = join(d, 'r.json');
    const r = JSON.parse(readFileSync(join(ROOT, 'recipes/nemotron-h.json'), 'utf8'));
    r.baselines[0].value = 'fast';
    r.flags.DEVICE_MAMBA.env = 'lower case';
    writeFileSync(f, JSON.stringify(r));
    try {
      loadRecipe(f, ROOT);
      expect.unreachable();
    } catch (e) {
      const err = e as NhGateError;
      expect(err.code).toBe('BAD_CONFIG');
      expect(err.message).toContain(`${f}: baselines.0.value: Invalid input: expected number, received string`);
      expect(err.message).toContain(`${f}: flags.DEVICE_MAMBA.env: an environment variable name in UPPER_SNAKE_CASE`);
    }
    writeFileSync(f, '{ nope');
    expect(() => loadRecipe(f, ROOT)).toThrow(/r\.json: not valid JSON: unexpected text \(line 1, column 3\)/);
    expect(code(() => loadRecipe(join(d, 'absent.json'), ROOT))).toBe('UNREADABLE_FILE');
  });
});

describe('gates and goldens', () => {
  it('loadGate returns the sha256 of the file bytes', () => {
    const d = tmp();
    const f = join(d, 'g.json');
    const text = JSON.stringify({ schemaVersion: 1, kind: 'ab', name: 'x', recipe: 'nemotron-h', flag: 'DEVICE_MAMBA', report: 'only' });
    writeFileSync(f, text);
    const g = loadGate(f);
    expect(g.sha256).toBe(sha256(text));
    expect(g.gate.repeats).toBe(4);
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, kind: 'nope', name: 'x', recipe: 'r' }));
    expect(() => loadGate(f)).toThrow(/g\.json: kind: /);
  });

  it('loadGolden by name, by directory, and unknown names listed', () => {
    const d = tmp();
    mkdirSync(join(d, 'goldens', 'tiny'), { recursive: true });
    const golden = {
      schemaVersion: 1, name: 'tiny', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'r' },
      sampling: { kind: 'greedy', maxNewTokens: 2 }, capturedAt: 't', capturedHost: 'h', engineConfigRecorded: 'unknown',
      nearTie: { licensed: false, maxMarginNats: 0 }, determinism: null, prompts: [{ id: 0, promptTokens: [1], tokens: [2, 3] }],
    };
    writeFileSync(join(d, 'goldens', 'tiny', 'golden.json'), JSON.stringify(golden));
    expect(loadGolden('tiny', d).golden.prompts[0]?.tokens).toEqual([2, 3]);
    expect(loadGolden(join(d, 'goldens', 'tiny'), d).golden.name).toBe('tiny');
    try {
      loadGolden('huge', d);
      expect.unreachable();
    } catch (e) {
      expect((e as NhGateError).code).toBe('UNKNOWN_GOLDEN');
      expect((e as NhGateError).message).toContain('known: tiny');
    }
  });
});

describe('samples file', () => {
  it('garbage lines are named, counted and skipped — never silent', async () => {
    const d = tmp();
    const f = join(d, 's.jsonl');
    writeFileSync(
      f,
      [
        JSON.stringify({ kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'driver µs → monotonic via paired reads', nominalPeriodMs: 166 }),
        JSON.stringify({ kind: 'util', tS: 1.0, gpuPct: 5 }),
        'garbage here',
        JSON.stringify({ kind: 'util', tS: 2.0, gpuPct: 150 }),
        '',
        JSON.stringify({ kind: 'util', tS: 3.0, gpuPct: 7, periodS: 0.166 }),
        JSON.stringify({ kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'x' }),
        JSON.stringify({ kind: 'weird' }),
      ].join('\n'),
    );
    const s = await readSamplesFile(f);
    expect(s.header?.nominalPeriodMs).toBe(166);
    expect(s.samples.map((x) => x.tS)).toEqual([1, 3]);
    expect(s.garbage.map((g) => g.lineNo)).toEqual([3, 4, 7, 8]);
    expect(s.garbage[0]?.reason).toBe('not JSON');
    expect(s.garbage[1]?.reason).toMatch(/^gpuPct: /);
    expect(s.garbage[2]?.reason).toBe('a second header line');
    await expect(readSamplesFile(join(d, 'none.jsonl'))).rejects.toMatchObject({ code: 'UNREADABLE_FILE' });
  });
});

describe('validate', () => {
  it('classifies by place and by content', () => {
    expect(classify('recipes/x.json', {})).toBe('recipe');
    expect(classify('gates/nh-ref/mutations.json', {})).toBe('mutations');
    expect(classify('gates/nh-ref/ab.json', {})).toBe('gate');
    expect(classify('goldens/a/golden.json', {})).toBe('golden');
    expect(classify('x/p.json', { prefix: '[x]', patterns: [] })).toBe('profile');
    expect(classify('x/s.jsonl', {})).toBe('samples');
    expect(classify('x/y.json', { a: 1 })).toBeNull();
  });

  it('the shipped tree validates; a bad file lists file: field: message; cross-refs are checked', () => {
    const shipped = collectFiles([], ROOT).map((f) => validateFile(f, ROOT, ROOT));
    expect(shipped.length).toBeGreaterThan(0);
    expect(shipped.filter((r) => r.issues.length > 0)).toEqual([]);
    const d = tmp();
    mkdirSync(join(d, 'gates'));
    const g = join(d, 'gates', 'bad.json');
    writeFileSync(g, JSON.stringify({ schemaVersion: 1, kind: 'ab', name: 'x', recipe: 'nope', repeats: -1, report: 'only' }));
    expect(validateFile(g, ROOT).issues).toEqual([`${g}: repeats: Too small: expected number to be >=1 (line 1, column 59)`]);
    writeFileSync(g, JSON.stringify({ schemaVersion: 1, kind: 'ab', name: 'x', recipe: 'nope', report: 'only' }));
    expect(validateFile(g, ROOT).issues[0]).toMatch(new RegExp(`^${g.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: recipe: no recipe named 'nope' \\(named in .*\\); looked in: .*recipes`));
    mkdirSync(join(d, 'recipes'));
    const r = JSON.parse(readFileSync(join(ROOT, 'recipes/nemotron-h.json'), 'utf8'));
    r.profile = 'llama';
    writeFileSync(join(d, 'recipes', 'r.json'), JSON.stringify(r));
    expect(validateFile(join(d, 'recipes', 'r.json'), ROOT).issues[0]).toMatch(/r\.json: profile: no output profile named 'llama'/);
    const s = join(d, 's.jsonl');
    writeFileSync(s, '{"kind":"util","tS":1,"gpuPct":5}\nnope\n');
    expect(validateFile(s, ROOT).issues).toEqual([`${s}: line 2: not JSON`]);
  });
});

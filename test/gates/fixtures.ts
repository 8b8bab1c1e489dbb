import type { Golden } from '../../src/config/golden.js';
import { GoldenSchema } from '../../src/config/golden.js';
import { RecipeSchema, type Recipe } from '../../src/config/recipe.js';
import type { TokenWord } from '../../src/verdict/words.js';
import type { LegRecord } from '../../src/results/types.js';
import { measured } from '../../src/quantity/make.js';

// A small golden: two prompts of 4 tokens; prompt 1 has a near-tie margin at position 2.
export function golden(nearTie: { licensed: boolean; maxMarginNats: number } = { licensed: true, maxMarginNats: 0.01 }): Golden {
  return GoldenSchema.parse({
    schemaVersion: 1, name: 'g-test', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'abc' },
    sampling: { kind: 'greedy', maxNewTokens: 4 }, capturedAt: 'now', capturedHost: 'h', engineConfigRecorded: 'yes', nearTie,
    determinism: { runs: 2, multiValuedCells: 0 },
    prompts: [
      { id: 0, promptTokens: [1, 2, 3], tokens: [10, 11, 12, 13], top2MarginNats: [1, 1, 1, 1] },
      { id: 1, promptTokens: [4, 5], tokens: [20, 21, 22, 23], top2MarginNats: [1, 1, 0.005, 1] },
    ],
  });
}

// A recipe with two flags, for plans and flag errors.
export function recipe(): Recipe {
  return RecipeSchema.parse({
    schemaVersion: 1, name: 'r-test', profile: 'nh-ref', sourceDir: '.', buildDir: 'b-{arch}',
    configure: ['true'], build: ['true'], driver: { argv: ['true'], binary: 'x', env: { KEEP: '1' } },
    flags: {
      STEP: { env: 'R_STEP', on: '1', off: '0', default: 'on' },
      DEV: { env: 'R_DEV', on: 'yes', off: 'no', default: 'off', deviceArm: true, requiresCells: ['gemv'] },
    },
  });
}

// A leg record with just what the comparison reads.
export function leg(index: number, arm: 'A' | 'B', perTokenS: number | null, opts: { verdict?: TokenWord; counters?: Record<string, number>; sha?: string; loadS?: number } = {}): LegRecord {
  return {
    index, arm, label: `${arm}${index}`, mode: 'decode', flagEnv: {}, binarySha256: opts.sha ?? 'sha-1',
    process: { argv: [], exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, end: 'exit 0', startS: 0, endS: 1, lastLines: [] },
    logFile: 'x', eventsFile: null, samplesFile: null, samplerBackend: null, samplerNote: null,
    loadLine: { seen: true, tS: 0.1, loadS: opts.loadS ?? 0.1, source: 'line 1' }, decodeWindow: null, engineWindow: null,
    tokens: null, crossCheck: null, referenceTierLines: 0, counters: opts.counters ?? { calls: 1 }, counterRecords: 1,
    contention: { foreignPids: [], checked: false, note: '' },
    quantities: perTokenS === null ? {} : { perOutputToken: measured('per output token', 'perOutputToken', perTokenS, 's', {}) },
    verdict: opts.verdict ?? 'STRICT PASS', voidReasons: [],
  };
}

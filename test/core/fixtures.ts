import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// Line shapes quoted from the SPEC and the seeds; tests build logs from these, never from the parser's regexes.
export const A3_PASS = [
  '[nemotron-h] libvllm 0.0.3+cuda (ABI 21, header 21)',
  '[nemotron-h] engine loaded in 254.5s',
  '[nemotron-h] prompt 0: prompt_tokens=5  generated=32 golden_width=32 compared=32 matched=32 wall=335.87s',
  '[nemotron-h] prompt 1: prompt_tokens=8  generated=32 golden_width=32 compared=32 matched=32 wall=323.42s',
  '[nemotron-h] prompt 2: prompt_tokens=13 generated=32 golden_width=32 compared=32 matched=32 wall=322.71s',
  '',
  '[nemotron-h] TOKEN MATCH: 96/96 over 3 prompt(s) (full rows=3, short rows=0, mode=decode)',
  '[nemotron-h] STRICT PASS',
];

export const FEATURES_121A = [
  '-- CUDA target architectures: 121a',
  '--   CUDA feature fp4-mma: ENABLED for [121a]',
  '--   CUDA feature cutlass-nvfp4: ENABLED for [121a]',
  '--   CUDA feature cutlass-fp8: ENABLED for [121a]',
  '--   CUDA feature marlin-nvfp4: ENABLED for [121a]',
  '--   CUDA feature fa2: ENABLED for [121a]',
  '--   CUDA feature cutlass-nvfp4-sm100: DISABLED (no requested arch in [121a] provides it)',
  '-- CUTLASS found at /cutlass; enabling sm120a NVFP4 cutlass GEMM',
];

export const DOCTEST_RED = ['[doctest] test cases:  3 |  2 passed | 1 failed | 0 skipped', '[doctest] assertions: 47 | 42 passed | 5 failed |', '[doctest] Status: FAILURE!'];
export const DOCTEST_GREEN = ['[doctest] test cases:  3 |  3 passed | 0 failed | 0 skipped', '[doctest] assertions: 47 | 47 passed | 0 failed |', '[doctest] Status: SUCCESS!'];

export const ARM_DECODE = 'ARM step T=1 nd=1 np=0 state_update_rows=23 chunk_scan_calls=0 conv_update_rows=23 conv_fwd_calls=0 gathers=0 scatters=0';
export const ARM_PREFILL = 'ARM step T=5 nd=0 np=1 state_update_rows=0 chunk_scan_calls=23 conv_update_rows=0 conv_fwd_calls=23 gathers=23 scatters=23';

// A leg log as nh-gate stores it: arrival seconds, TAB, the engine's line.
export function timed(lines: readonly string[], times: readonly number[]): string[] {
  return lines.map((l, i) => `${(times[i] ?? 0).toFixed(6)}\t${l}`);
}

// A golden written by the tests themselves (goldens/ is not copied into Stryker's sandbox): four prompts,
// three tokens each, with a margin and a runner-up per token.
export function tinyGolden(): Record<string, any> {
  return {
    schemaVersion: 1, name: 'nh-ref-tiny', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'r' },
    sampling: { kind: 'greedy', maxNewTokens: 3 }, capturedAt: 't', capturedHost: 'h', engineConfigRecorded: 'yes',
    nearTie: { licensed: true, maxMarginNats: 0.01 }, determinism: { runs: 2, multiValuedCells: 0 },
    prompts: [0, 1, 2, 3].map((id) => ({ id, promptTokens: [1, 2], tokens: [5, 6, 7], top2MarginNats: [1, 2, 3], runnerUp: [8, 9, 10] })),
  };
}

// A project folder holding the shipped nh-ref recipe and tinyGolden() as goldens/nh-ref-tiny, so that a gate or
// recipe validated in it resolves its references (validate resolves them as a run does).
export function configProject(repoRoot: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-project-'));
  mkdirSync(join(dir, 'recipes'));
  mkdirSync(join(dir, 'goldens', 'nh-ref-tiny'), { recursive: true });
  copyFileSync(join(repoRoot, 'recipes', 'nh-ref.json'), join(dir, 'recipes', 'nh-ref.json'));
  writeFileSync(join(dir, 'goldens', 'nh-ref-tiny', 'golden.json'), JSON.stringify(tinyGolden()));
  return dir;
}

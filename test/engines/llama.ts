import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execaSync } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import type { Need } from '../helpers/needs.js';

// Whether the llama.cpp CPU build (scripts/ci/llama-cpp.sh) and numpy are here. Tests that need them are
// skipped, and vitest counts them as skipped, when they are not: the reason is printed once.
export const LLAMA_BUILD = join(repoRoot, '.cache', 'llama.cpp', 'build-cpu');
export const LLAMA_SERVER = join(LLAMA_BUILD, 'bin', 'llama-server');
export const TINY_GGUF = join(LLAMA_BUILD, 'tiny-llama.gguf');

function numpy(): boolean {
  try {
    return execaSync('python3', ['-c', 'import numpy'], { reject: false }).exitCode === 0;
  } catch {
    return false;
  }
}

export const llamaReady = existsSync(LLAMA_SERVER) && existsSync(TINY_GGUF) && numpy();
// The summary line of skipped llama.cpp tests (test/reporters/needs.ts) names this command.
export const LLAMA_NEED: Need = { what: 'llama-server (CPU) and its tiny GGUF', ready: llamaReady, build: 'bash scripts/ci/llama-cpp.sh' };

export const CLI = join(repoRoot, 'bin', 'nh-gate.js');

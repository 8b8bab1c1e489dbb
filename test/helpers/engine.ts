import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

// The repo root, from this file's place (test/helpers/engine.ts).
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// What a test needs from the built reference engine: every path absolute.
export interface EngineBuild {
  buildDir: string;
  driver: string;
  ckptTool: string;
  tests: string;
  // Generates (once) and returns the preset's pinned checkpoint inside the build dir.
  checkpoint(preset: 'tiny' | 'medium'): Promise<string>;
}

export interface EngineBuildOptions {
  // Only the CPU build runs here; a CUDA build is compiled by scripts (native/engine/scripts/build-cuda.sh).
  cuda?: false;
}

const LOCK_STALE_MS = 15 * 60_000;
const cache = new Map<string, Promise<EngineBuild>>();

// One configure+build per test run, shared by every test file and both vitest workers:
// the build dir is the recipe's (.nh-gate/build/nh-ref-cpu), guarded by a lock directory.
export function ensureEngineBuilt(options: EngineBuildOptions = {}): Promise<EngineBuild> {
  void options;
  const buildDir = path.join(repoRoot, '.nh-gate', 'build', 'nh-ref-cpu');
  let pending = cache.get(buildDir);
  if (!pending) {
    pending = build(buildDir);
    cache.set(buildDir, pending);
  }
  return pending;
}

async function build(buildDir: string): Promise<EngineBuild> {
  const sourceDir = path.join(repoRoot, 'native', 'engine');
  mkdirSync(buildDir, { recursive: true });
  await withLock(path.join(buildDir, '.nh-ref-build.lock'), async () => {
    // The suites are needed here: ON (not AUTO), so a build dir that a3 configured without doctest is reconfigured.
    if (!existsSync(path.join(buildDir, 'build.ninja')) || !existsSync(path.join(buildDir, 'nh-ref-tests'))) {
      await execa('cmake', ['-S', sourceDir, '-B', buildDir, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release', '-DNH_REF_TESTS=ON'], { all: true });
    }
    await execa('cmake', ['--build', buildDir, '--parallel', '2'], { all: true });
  });
  const ckptTool = path.join(buildDir, 'nh-ref-ckpt');
  const generated = new Map<string, Promise<string>>();
  return {
    buildDir,
    driver: path.join(buildDir, 'nh-ref-gen'),
    ckptTool,
    tests: path.join(buildDir, 'nh-ref-tests'),
    checkpoint(preset) {
      let p = generated.get(preset);
      if (!p) {
        p = (async () => {
          const file = path.join(buildDir, `${preset}.ckpt`);
          await withLock(path.join(buildDir, `.nh-ref-${preset}.lock`), async () => {
            // The tool writes atomically and refuses a sha that differs from the engine's pin.
            if (!existsSync(file)) await execa(ckptTool, ['--preset', preset, '--out', file], { all: true });
          });
          return file;
        })();
        generated.set(preset, p);
      }
      return p;
    },
  };
}

// mkdir is atomic: the worker that creates the directory holds the lock; others wait.
async function withLock<T>(lockDir: string, work: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        if (Date.now() - statSync(lockDir).mtimeMs > LOCK_STALE_MS) rmSync(lockDir, { recursive: true, force: true });
      } catch {
        // the holder released it between our calls
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

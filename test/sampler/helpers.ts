// Shared by the sampler tests: build the addon (and the stand-in NVML) once, under a lock, and point
// PATH at the stand-in nvidia-smi when a test asks for it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ADDON = join(ROOT, 'native/addon/build/Release/nh_nvml.node');
export const FAKE_NVML = join(ROOT, 'native/addon/build/Release/libfake-nvidia-ml.so');
export const FAKE_BIN = join(ROOT, 'test/sampler/fixtures/bin');

function newestMs(paths: string[]): number {
  let newest = statSync(join(ROOT, 'native/addon/CMakeLists.txt')).mtimeMs;
  for (const p of paths) {
    const full = join(ROOT, p);
    const files = statSync(full).isDirectory() ? readdirSync(full).map((f) => join(full, f)) : [full];
    for (const f of files) newest = Math.max(newest, statSync(f).mtimeMs);
  }
  return newest;
}

// Each output against its own sources (ninja relinks only what changed).
function upToDate(): boolean {
  return (
    existsSync(ADDON) && existsSync(FAKE_NVML) &&
    statSync(ADDON).mtimeMs >= newestMs(['native/addon/src']) &&
    statSync(FAKE_NVML).mtimeMs >= newestMs(['native/addon/test/fake_nvml.c'])
  );
}

// Builds native/addon through the same script `npm install` runs; test files in parallel wait on one lock.
export function ensureAddonBuilt(): void {
  if (upToDate()) return;
  const lock = join(ROOT, 'native/addon/.build-lock');
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run (older than 5 minutes) is stale.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${lock} held for 4 minutes: remove it if no build is running`);
      execFileSync('sleep', ['0.5']);
    }
  }
  try {
    if (!upToDate()) execFileSync(process.execPath, [join(ROOT, 'scripts/build-addon.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
  if (!upToDate()) throw new Error(`the addon did not build: ${ADDON} (run 'node scripts/build-addon.mjs' to see why)`);
}

// PATH with the stand-in nvidia-smi first, or with no nvidia-smi at all (only node's own folder).
export function pathWithSmi(present: boolean): string {
  const nodeDir = join(process.execPath, '..');
  return present ? `${FAKE_BIN}:${nodeDir}:/usr/bin:/bin` : `${nodeDir}:/usr/bin:/bin`;
}

export const monoS = (): number => Number(process.hrtime.bigint()) / 1e9;

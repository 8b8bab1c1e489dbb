import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { writeAtomic } from '../io/atomic.js';

// An A/B re-ran CMake's configure before every run (0.3 s wall, 0.1 s CPU of the harness's fixed cost) only to
// read its feature table again. A build directory that a good configure left behind, configured with the same
// argv and the same toolchain, does not need it: ninja (and make) re-run CMake themselves when a CMakeLists.txt
// or a file it read changes, and the feature table is kept here from that last configure. Kept in the build
// directory, so deleting the build directory forgets it.
export const CONFIGURE_MEMO = '.nh-gate-configure.json';

// The shell's own bookkeeping, which differs between two runs of one command line and no configure reads.
const VOLATILE_ENV = new Set(['_', 'OLDPWD', 'SHLVL']);

// Pure: what a configure's outcome depends on that nh-gate sees: its argv, the toolchain probes' output (a new
// cmake, compiler or nvcc is a new key) and the environment it runs in (CC, CUDA_HOME, PATH or a variable a find
// module or a configure script reads change what it finds: a run with another environment configures again).
// Null for a configure that is not CMake's: only CMake's build files re-run it on their own.
export function configureKey(argv: readonly string[], probeOutput: readonly string[], env: Readonly<Record<string, string | undefined>>): string | null {
  if (argv[0] === undefined || basename(argv[0]) !== 'cmake') return null;
  return createHash('sha256').update(JSON.stringify({ argv, probeOutput, env: keyedEnv(env) })).digest('hex');
}

// Pure: an environment as a memo key holds it (sorted, less the shell's bookkeeping); the probe memo keys on it too.
export function keyedEnv(env: Readonly<Record<string, string | undefined>>): Array<[string, string]> {
  return (Object.entries(env).filter(([k, v]) => v !== undefined && !VOLATILE_ENV.has(k)) as Array<[string, string]>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

// The last good configure's log, when the build directory is still configured (CMakeCache.txt) under this key.
export function reusableConfigure(buildDir: string, key: string | null): string[] | null {
  if (key === null || !existsSync(join(buildDir, 'CMakeCache.txt'))) return null;
  try {
    const memo = JSON.parse(readFileSync(join(buildDir, CONFIGURE_MEMO), 'utf8')) as { key?: unknown; log?: unknown };
    const log = memo.log;
    return memo.key === key && Array.isArray(log) && log.every((l) => typeof l === 'string') ? (log as string[]) : null;
  } catch {
    return null; // none yet, or unreadable: configure again
  }
}

// Remembers a configure whose build was BUILT (a degraded or failed one is never reused: the next run configures
// again, so installing the missing toolchain is seen). A memo that cannot be written only costs a configure.
export function rememberConfigure(buildDir: string, key: string | null, log: readonly string[]): void {
  if (key === null) return;
  try {
    writeAtomic(join(buildDir, CONFIGURE_MEMO), JSON.stringify({ key, log }) + '\n');
  } catch {
    // left as it was: an older memo of another key is never read back as this one
  }
}

export function forgetConfigure(buildDir: string): void {
  rmSync(join(buildDir, CONFIGURE_MEMO), { force: true });
}

import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { whichProgram } from '../exec/which.js';
import { writeAtomic } from '../io/atomic.js';
import { keyedEnv } from './configureMemo.js';

// Every build step (an A/B builds before its legs) ran the recipe's toolchain probes again: three processes,
// ~0.13 s of wall (issue 25), to print the same version. A `<program> --version` probe answers from the
// program's own bytes, so its output is kept in the build directory under the program's identity on disk and
// the environment, like the configure memo beside it (configureMemo.ts; deleting the build directory forgets
// both). Any other probe (a link test, a file that must exist) answers from more than one file and always runs.
export const PROBE_MEMO = '.nh-gate-probes.json';

// One executable file for good: where PATH found it, what it resolves to, and that inode's identity (a reinstall,
// an update-alternatives switch, a rebuild in place or by rename changes one of them).
export interface ProgramIdentity {
  path: string;
  realPath: string;
  id: string;
}

// What a probe printed, kept as its record holds it.
export interface ProbeOutput {
  log: string[];
  lastLines: string[];
}

// The identity of the ELF file argv[0] names (found as the probe's run would find it), or null: not found, or
// a script, whose answer is whatever it runs (a wrapper around another cmake or nvcc).
export function programIdentity(program: string, cwd: string, pathEnv?: string): ProgramIdentity | null {
  const path = whichProgram(program, cwd, pathEnv);
  if (path === null) return null;
  try {
    const realPath = realpathSync(path);
    const fd = openSync(realPath, 'r');
    const magic = Buffer.alloc(4);
    try {
      readSync(fd, magic, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
    if (!magic.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) return null;
    const st = statSync(realPath, { bigint: true });
    return { path, realPath, id: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` };
  } catch {
    return null;
  }
}

// Pure: the memo key of a probe, or null when its answer is not the program's alone (anything but `X --version`,
// or a program that is not a binary).
export function probeKey(argv: readonly string[], program: ProgramIdentity | null, env: Readonly<Record<string, string | undefined>>): string | null {
  if (program === null || argv.length !== 2 || argv[1] !== '--version') return null;
  return createHash('sha256').update(JSON.stringify({ argv, program, env: keyedEnv(env) })).digest('hex');
}

// The probes remembered in a build directory; none when there is no memo or it cannot be read.
export function readProbeMemo(buildDir: string): Map<string, ProbeOutput> {
  const out = new Map<string, ProbeOutput>();
  try {
    const memo = JSON.parse(readFileSync(join(buildDir, PROBE_MEMO), 'utf8')) as { probes?: unknown };
    for (const [key, v] of Object.entries(memo.probes ?? {})) {
      const { log, lastLines } = (v ?? {}) as { log?: unknown; lastLines?: unknown };
      const strings = (xs: unknown): xs is string[] => Array.isArray(xs) && xs.every((x) => typeof x === 'string');
      if (strings(log) && strings(lastLines)) out.set(key, { log, lastLines });
    }
  } catch {
    // none yet, or unreadable: every probe runs
  }
  return out;
}

// Remembers the passing probes of a BUILT build (a failed one always runs again, so a fixed toolchain is seen).
// A memo that cannot be written only costs the probes next time.
export function rememberProbes(buildDir: string, probes: ReadonlyMap<string, ProbeOutput>): void {
  try {
    writeAtomic(join(buildDir, PROBE_MEMO), JSON.stringify({ probes: Object.fromEntries(probes) }) + '\n');
  } catch {
    // left as it was: a key names its program and environment, so an older entry is never read as another's
  }
}

import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NhGateError } from '../errors.js';
import { freeBytes } from '../io/diskFaults.js';

// Held in the run directory from its creation, freed when the disk fills, so the failed run's own record
// still fits ("where one byte still fits"): a full disk ends as a named state, not as a missing result.json.
export const RESERVE_BYTES = 512 * 1024;
// What one leg's log is expected to need when no earlier leg says otherwise; NH_GATE_EXPECT_LOG_BYTES overrides.
export const DEFAULT_LOG_BYTES_PER_LEG = 8 * 1024 * 1024;

export interface Reserve {
  release(): void;
}

// Writes the reserve file; a disk too full even for that is DISK_FULL before anything ran.
export function takeReserve(runDir: string): Reserve {
  const path = join(runDir, '.reserve');
  try {
    writeFileSync(path, Buffer.alloc(RESERVE_BYTES));
  } catch (err) {
    rmSync(path, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    throw new NhGateError(code === 'ENOSPC' || code === 'EDQUOT' ? 'DISK_FULL' : 'UNWRITABLE', `cannot reserve ${RESERVE_BYTES} bytes for the run's record in ${runDir} (${code})`, 'free space on that filesystem or pass --results-dir DIR on a larger one');
  }
  return { release: () => rmSync(path, { force: true }) };
}

// Bytes one leg's log is expected to take: the env override, else the largest leg log so far, else the default.
export function expectedLogBytes(largestSoFar: number, env: NodeJS.ProcessEnv = process.env): number {
  const o = env.NH_GATE_EXPECT_LOG_BYTES;
  const fromEnv = o !== undefined && /^\d+$/.test(o) ? Number(o) : null;
  return Math.max(fromEnv ?? DEFAULT_LOG_BYTES_PER_LEG, largestSoFar);
}

// Pure: the sentence for too little space, or null when the legs' logs are expected to fit.
export function spaceShortfall(free: number | null, legs: number, perLegBytes: number, dir: string): string | null {
  if (free === null || legs <= 0) return null;
  const need = legs * perLegBytes;
  if (free >= need) return null;
  return `${dir} has ${free} bytes free; ${legs} leg(s) are expected to log ${need} bytes (${perLegBytes} per leg; NH_GATE_EXPECT_LOG_BYTES sets it)`;
}

// The check before a leg starts: free space on runDir's filesystem against the legs still to run.
export function checkSpace(runDir: string, legsLeft: number, largestLogSoFar: number): string | null {
  return spaceShortfall(freeBytes(runDir), legsLeft, expectedLogBytes(largestLogSoFar), runDir);
}

import { refused } from '../../quantity/make.js';
import type { LegRecord } from '../../results/types.js';
import type { BusySamplerResult } from '../../sampler/types.js';

// The busy figures a sampler failure takes down; the leg's other figures (per-token time) stand.
const BUSY_KEYS = ['busy', 'busyShare'] as const;

// A sampler that failed mid-window (NVML error, the GPU lost, the sampler thread gone) leaves samples that
// stop before the window ends: a mean over them would describe part of the window as if it were all of it.
// Such a leg's busy is refused as PARTIAL, by name, with the sampler's own errors.
// util carries monotonic seconds; the record's window is relative to the run's origin (originS).
export function refuseBusyCutShort(record: LegRecord, stopped: Pick<BusySamplerResult, 'backend' | 'partial' | 'errors'> | null, util: ReadonlyArray<{ tS: number }>, originS: number): void {
  if (!stopped?.partial || !record.decodeWindow) return;
  let lastS: number | null = null;
  for (const u of util) lastS = Math.max(lastS ?? -Infinity, u.tS - originS);
  if (lastS !== null && lastS >= record.decodeWindow.endS) return;
  const why = `the ${stopped.backend} sampler failed mid-window (${stopped.errors.slice(-2).join('; ') || 'no error text'}); samples end ${lastS === null ? 'before the window' : `at ${lastS.toFixed(3)} s`}, the decode window at ${record.decodeWindow.endS.toFixed(3)} s`;
  for (const k of BUSY_KEYS) {
    const q = record.quantities[k];
    if (q && q.status === 'measured') record.quantities[k] = refused(q.name, 'PARTIAL', why);
  }
  record.samplerNote = `${record.samplerNote ? `${record.samplerNote}; ` : ''}SAMPLER_FAILED: ${why}`;
}

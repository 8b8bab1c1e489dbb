import type { LegRecord } from '../../results/types.js';
import { refused } from '../../quantity/make.js';
import { reason } from '../../verdict/reasons.js';

// A CPU leg whose host was busy with other processes (the tree's CPU_CONTENDED note, exec/ours.ts) is only
// flagged, unless the gate asks (`voidIfCpuContended`): then it is VOID (CPU_CONTENDED) and has no speed.
// (In place, like the sampler-cut rule beside it: the record is the leg's, judged once.)
export function applyCpuContention(record: LegRecord, voidIfCpuContended: boolean): void {
  const note = record.contention.cpu;
  if (!voidIfCpuContended || !note || record.verdict === 'VOID') return;
  const why = reason('CPU_CONTENDED', `${note} — the gate voids a CPU-contended leg`);
  for (const [k, q] of Object.entries(record.quantities)) if (q.status === 'measured' && /perOutputToken|perToken/.test(k)) record.quantities[k] = refused(q.name, 'CONTENDED', why.message);
  record.verdict = 'VOID';
  record.voidReasons = [...record.voidReasons, why];
}

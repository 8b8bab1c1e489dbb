import type { ProcessRun } from '../../exec/types.js';

// A ProcessRun as JSON: its monotonic stamps (bigint ns) travel as decimal strings, both ways, so a node
// task's record (src/slurm/tasks/*.ts) carries the process exactly as the node saw it.

export type WireRun = Omit<ProcessRun, 'startNs' | 'endNs' | 'lines'> & { startNs: string; endNs: string; lines: Array<{ tNs: string; stream: 'stdout' | 'stderr'; text: string; crOverwrites?: number; truncatedChars?: number }> };

// The run as the node writes it.
export function runToWire(r: ProcessRun): WireRun {
  return { ...r, startNs: String(r.startNs), endNs: String(r.endNs), lines: r.lines.map((l) => ({ ...l, tNs: String(l.tNs) })) };
}

// The run as the harness reads it back; null when the value is not a wire run (a record of another version).
export function runFromWire(w: unknown): ProcessRun | null {
  const o = w as WireRun | null;
  if (!o || typeof o !== 'object' || typeof o.startNs !== 'string' || typeof o.endNs !== 'string' || !Array.isArray(o.lines) || !Array.isArray(o.argv)) return null;
  try {
    return { ...o, startNs: BigInt(o.startNs), endNs: BigInt(o.endNs), lines: o.lines.map((l) => ({ ...l, tNs: BigInt(l.tNs) })) };
  } catch {
    return null;
  }
}

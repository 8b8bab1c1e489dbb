import type { RefusalCode } from '../quantity/types.js';
import { NEMOTRON_H } from './builtin.js';
import { createDriverReader } from './reader.js';
import type { FeatureCell, FeatureTable } from './types.js';

// The CMake feature table from configure output ("--   CUDA feature fp4-mma: ENABLED for [121a]").
export function parseFeatureTable(lines: string | readonly string[]): FeatureTable {
  const reader = createDriverReader(NEMOTRON_H);
  for (const l of typeof lines === 'string' ? lines.split('\n') : lines) reader.push(l);
  return reader.report().features;
}

export interface CellCheck {
  ok: boolean;
  reason: RefusalCode | null;
  missing: Array<{ cell: string; why: string }>;
  message: string;
}

// Whether every required cell reads ENABLED for the arch; otherwise DEGRADED_BUILD naming each cell and why.
export function checkRequiredCells(table: FeatureTable, required: readonly string[], arch: string): CellCheck {
  const byName = new Map<string, FeatureCell>();
  for (const c of table.cells) byName.set(c.cell, c); // the last configure wins
  const missing: Array<{ cell: string; why: string }> = [];
  for (const cell of required) {
    const c = byName.get(cell);
    if (!c) missing.push({ cell, why: 'absent from the feature table' });
    else if (c.state !== 'ENABLED') missing.push({ cell, why: `DISABLED${c.reason ? ` (${c.reason})` : ''}` });
    else if (c.archs.length > 0 && !c.archs.includes(arch)) missing.push({ cell, why: `ENABLED for [${c.archs.join(', ')}], not for ${arch}` });
  }
  if (missing.length === 0) return { ok: true, reason: null, missing, message: `all ${required.length} required cells ENABLED for ${arch}` };
  return {
    ok: false,
    reason: 'DEGRADED_BUILD',
    missing,
    message: `degraded build for ${arch}: ${missing.map((m) => `${m.cell} ${m.why}`).join('; ')}`,
  };
}

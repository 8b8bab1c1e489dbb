// Required feature cells against what the configure printed: a cell that is DISABLED or absent is
// missing, and a build with a missing required cell is a DEGRADED_BUILD (void, never a quiet pass).
import type { CellState } from './types.js';

// The feature-table reader (CORE's profile parser) as the build sees it: configure lines → cells.
export type FeatureParser = (lines: readonly string[]) => CellState[];

export interface CellVerdict {
  cells: CellState[];
  missing: string[];
  // "mamba-gemv (DISABLED: NH_REF_CUDA=OFF), mamba-scan (absent from the feature table)"
  describe: string;
}

// Which required cells are not ENABLED, each named with what the configure said about it.
export function evaluateCells(cells: CellState[], required: readonly string[]): CellVerdict {
  const byName = new Map(cells.map((c) => [c.name, c]));
  const missing: string[] = [];
  const words: string[] = [];
  for (const name of required) {
    const c = byName.get(name);
    if (c?.enabled) continue;
    missing.push(name);
    words.push(c ? `${name} (${c.detail})` : `${name} (absent from the feature table)`);
  }
  return { cells, missing, describe: words.join(', ') };
}

import { writeAtomic } from '../io/atomic.js';
import type { RunResult } from '../results/types.js';
import { SERIALIZERS, type ExportFormat } from './exports.js';
import type { RunListener } from './live.js';

// The one edge of the exports: each requested file rewritten whole (atomically) from the current result,
// after every leg as hyperfine does after every benchmark, so a stopped run's export holds its finished legs.

export interface ExportTarget {
  format: ExportFormat;
  path: string;
}

// Writes every target; a file that cannot be written is named on stderr once and the run goes on (its
// figures are in the run directory either way).
export function exportListener(targets: readonly ExportTarget[], warn: (line: string) => void): RunListener | null {
  if (targets.length === 0) return null;
  const failed = new Set<string>();
  return {
    saved(r: RunResult) {
      for (const t of targets) {
        try {
          writeAtomic(t.path, SERIALIZERS[t.format](r));
        } catch (err) {
          if (failed.has(t.path)) continue;
          failed.add(t.path);
          warn(`nh-gate: --export-${t.format} ${t.path} was not written: ${(err as Error).message}; ${r.runDir} holds every figure`);
        }
      }
    },
  };
}

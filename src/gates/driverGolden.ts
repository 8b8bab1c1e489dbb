import { join } from 'node:path';
import type { Golden } from '../config/golden.js';
import type { Recipe } from '../config/recipe.js';
import { oracleHandoff, type OracleHandoff } from '../oracle/vllmCpp/handoff.js';
import { writeAtomic } from '../io/atomic.js';

// What the driver's {golden} is, decided when the inputs load (so a stale original refuses before any
// build): nh-gate's golden.json, or the engine's own oracle.json for a recipe whose driver reads that.
export type DriverGolden = { format: 'nh-gate' } | { format: 'vllm-cpp-oracle'; handoff: OracleHandoff };

// The recipe's goldenFormat applied to a loaded golden.
export function driverGoldenFor(recipe: Recipe, golden: Golden, goldenPath: string): DriverGolden {
  return recipe.driver.goldenFormat === 'vllm-cpp-oracle' ? { format: 'vllm-cpp-oracle', handoff: oracleHandoff(golden, goldenPath) } : { format: 'nh-gate' };
}

// The file to hand over for a run: the golden itself, the imported original, or one written into the run
// directory (kept there, so the run records exactly what the engine read). Returns its path and a note.
export function placeDriverGolden(d: DriverGolden, goldenPath: string, runDir: string): { path: string; note: string | null } {
  if (d.format === 'nh-gate') return { path: goldenPath, note: null };
  const h = d.handoff;
  if (h.origin === 'original') return { path: h.path, note: `driver golden: the imported original ${h.path} (vllm-cpp-oracle, sha256 ${h.sha256})` };
  const path = join(runDir, 'golden', 'oracle.json');
  writeAtomic(path, h.text);
  return { path, note: `driver golden: ${path}, written in the vllm-cpp-oracle format from ${goldenPath} (sha256 ${h.sha256})` };
}

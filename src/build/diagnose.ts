import type { Recipe } from '../config/recipe.js';
import type { ExitClass } from '../verdict/words.js';
import type { BuildRecord } from './types.js';

// Why a configure or build failed, from its own output: the error lines a user would scroll for, and,
// when the recipe knows the symptom, the missing prerequisite and its fix.
export interface Diagnosis {
  cause: string[];
  prerequisite: { name: string; fix: string } | null;
}

const ERROR_LINE = /CMake Error|(?:^|[\s:)])(?:fatal )?error(?: #[\w-]+)?:|^FAILED: |No space left on device|undefined reference/i;
const MAX_CAUSE_LINES = 8;

// The error lines of a failed step (a CMake Error block keeps its indented message lines) and the
// recipe's prerequisite whose symptom appears in the output.
export function diagnoseFailure(recipe: Pick<Recipe, 'prerequisites'>, lines: readonly string[]): Diagnosis {
  const cause: string[] = [];
  for (let i = 0; i < lines.length && cause.length < MAX_CAUSE_LINES; i++) {
    const l = lines[i]!;
    if (!ERROR_LINE.test(l)) continue;
    cause.push(l.trim());
    if (/CMake Error/.test(l)) {
      for (let j = i + 1; j < lines.length && cause.length < MAX_CAUSE_LINES; j++) {
        const m = lines[j]!;
        if (m.trim() === '') { if (j > i + 1) break; continue; }
        if (!/^\s/.test(m)) break;
        cause.push(m.trim());
        i = j;
      }
    }
  }
  let prerequisite: Diagnosis['prerequisite'] = null;
  for (const p of recipe.prerequisites) {
    if (lines.some((l) => new RegExp(p.match).test(l))) {
      prerequisite = { name: p.name, fix: p.fix };
      break;
    }
  }
  return { cause, prerequisite };
}

// A build's exit class, the same from every command: built → passed; a missing prerequisite the recipe
// names → usage (exit 2: install it); any other failed or void build → void (nothing valid to judge).
export function buildExitClass(rec: Pick<BuildRecord, 'verdict' | 'prerequisite'>): ExitClass {
  if (rec.verdict === 'BUILT') return 'passed';
  return rec.prerequisite ? 'usage' : 'void';
}

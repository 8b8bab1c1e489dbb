import type { MutationTable } from '../config/mutations.js';
import type { Recipe } from '../config/recipe.js';
import { buildBaselines, gpuFor, judgeBaselines, pool } from './baseline.js';
import type { OperatorName } from './generate/operators.js';
import { suiteKey, treeLayout } from './steps.js';
import type { MutantResult, SanitizerRejudge } from './types.js';
import { generatedClass, judgeMutant, type Judgement, type MutantMeasure } from './verdict.js';
import { runMutant, type Worker } from './worker.js';

// The operators whose survivors may be memory errors the suites cannot see: a loop bound or comparison
// moved by one (relational), an index or size off by one, a clamp swapped (min-max). Their survivors are
// re-run in the recipe's sanitizer build; the other operators' survivors change values, not addresses.
export const SANITIZER_OPERATORS: readonly OperatorName[] = ['relational', 'off-by-one', 'min-max'];

// The recipe as its sanitizer build: its own build dir, the sanitizer's configure argv after the
// suites', and its environment on every suite run. Null when the recipe declares none.
export function sanitizedRecipe(recipe: Recipe): Recipe | null {
  const s = recipe.sanitizer;
  if (!s) return null;
  return { ...recipe, buildDir: s.buildDir, suiteConfigureArgv: [...recipe.suiteConfigureArgv, ...s.configureArgv], driver: { ...recipe.driver, env: { ...recipe.driver.env, ...s.env } } };
}

// Whether this run re-judges at all: the recipe declares a sanitizer build for the arch.
export function sanitizesArch(recipe: Recipe, arch: string): boolean {
  return recipe.sanitizer?.archs.includes(arch) ?? false;
}

// A survivor with its re-judge attached; a credited one becomes CAUGHT BY SANITIZER (its own word and
// exit class, counted apart from CAUGHT), the plain suite's detail kept beside the sanitizer's.
export function withRejudge(r: MutantResult, v: SanitizerRejudge): MutantResult {
  if (!v.credited) return { ...r, sanitizer: v };
  const caught: Judgement = { verdict: 'CAUGHT BY SANITIZER', reason: null, detail: `${r.detail}; ${v.detail}`, mustFailCaseFailed: r.mustFailCaseFailed };
  return { ...r, sanitizer: v, verdict: caught.verdict, detail: caught.detail, exitClass: generatedClass(caught).exitClass };
}

// The rows to re-judge: generated survivors of those operators not re-judged yet (a cached row may be).
export function rejudgeCandidates(rows: readonly MutantResult[]): MutantResult[] {
  return rows.filter((r) => r.origin && r.verdict === 'SURVIVED' && !r.sanitizer && SANITIZER_OPERATORS.includes(r.origin.operator));
}

// The sanitized run's word on a survivor: credited only when the suite went RED and a sanitizer reported;
// a RED without a report, a GREEN, or a run that proved nothing (not rebuilt, not restored …) leaves the
// row a survivor, with the reason said.
export function judgeSanitized(m: MutantMeasure, row: MutantResult, gpu: Parameters<typeof judgeMutant>[2], buildS: number | null): SanitizerRejudge {
  const j = judgeMutant(m, row.mutation, gpu);
  const finding = m.suite?.sanitizer ?? null;
  const base = { verdict: j.verdict, reason: j.reason, finding, binarySha: m.binarySha, restoreSha: m.restoreSha, suite: m.suite, buildS };
  if (j.verdict === 'CAUGHT' && finding) return { ...base, credited: true, detail: `the sanitizer build caught it: ${finding}` };
  if (j.verdict === 'CAUGHT') return { ...base, credited: false, detail: `RED under the sanitizer build but no sanitizer report (${j.detail}): not credited` };
  if (j.verdict === 'SURVIVED') return { ...base, credited: false, detail: 'GREEN under the sanitizer build too' };
  return { ...base, credited: false, detail: `sanitizer re-judge ${j.verdict}${j.reason ? ` ${j.reason}` : ''}: ${j.detail}` };
}

// A re-judge that never ran a mutant (the sanitizer baseline failed, or the run was stopped).
function notJudged(detail: string, reason: SanitizerRejudge['reason']): SanitizerRejudge {
  return { credited: false, verdict: 'VOID', reason, detail, finding: null, binarySha: null, restoreSha: null, suite: null, buildS: null };
}

export interface RejudgeOptions {
  recipe: Recipe;
  workers: readonly Worker[];
  workspace: string;
  table: MutationTable;
  arch: string;
  signal?: AbortSignal | undefined;
}

// Re-runs the candidates in the sanitizer build of the same scratch trees (own build dirs): baseline
// build and GREEN baseline suites first, then each survivor through the same apply → build → suite →
// restore → proof steps as any mutant. Returns each candidate's re-judge by row id.
export async function rejudgeWithSanitizer(candidates: readonly MutantResult[], o: RejudgeOptions): Promise<Map<string, SanitizerRejudge>> {
  const out = new Map<string, SanitizerRejudge>();
  const recipe = sanitizedRecipe(o.recipe);
  const trees = o.workers.filter((w) => !w.broken);
  if (!recipe || candidates.length === 0 || trees.length === 0) return out;
  const workers: Worker[] = trees.map((w) => ({ ...w, recipe, layout: treeLayout(recipe, o.workspace, w.layout.index, w.step), baseline: null, broken: false }));
  const suites = [...new Set(candidates.map((r) => r.mutation.suite))];
  const failure = await buildBaselines(workers, suites);
  if (failure) {
    for (const r of candidates) out.set(r.id, notJudged(`sanitizer build failed: ${failure}`, 'BASELINE_RED'));
    return out;
  }
  const { keyVoid, timeoutS } = await judgeBaselines(workers[0]!, candidates.map((r) => r.mutation), o);
  const live = candidates.filter((r) => {
    const v = keyVoid.get(suiteKey(recipe, r.mutation.suite, r.mutation.filter));
    if (v) out.set(r.id, notJudged(`sanitizer baseline: ${v.detail}`, v.reason));
    return !v;
  });
  await pool(workers, live, async (w, r) => {
    const key = suiteKey(recipe, r.mutation.suite, r.mutation.filter);
    const run = await runMutant(w, r.mutation, timeoutS.get(key) ?? o.table.timeoutFloorS);
    out.set(r.id, judgeSanitized(run.measure, r, gpuFor(recipe, o.arch, r.mutation.suite, r.mutation.filter), run.buildS));
  }, o.signal);
  for (const r of candidates) if (!out.has(r.id)) out.set(r.id, notJudged('not re-judged: interrupted, or every sanitizer tree failed its restore check', 'INTERRUPTED'));
  return out;
}

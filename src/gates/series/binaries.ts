import { buildVars } from '../../build/build.js';
import { buildStep, prepareStep } from '../buildStep.js';
import { expandArgv, expandString, type TemplateVars } from '../../build/template.js';
import { ensureWorktree, rootInTree } from '../../build/worktrees.js';
import { whichProgram } from '../../exec/which.js';
import type { PlannedLeg } from '../../plan/plan.js';
import type { VerdictRecord } from '../../verdict/record.js';
import { placeDriverGolden } from '../driverGolden.js';
import type { Inputs } from '../setup.js';
import type { SeriesRun } from './finish.js';
import { seriesVerdict } from './finish.js';
import type { BinarySite, SeriesPlan } from './types.js';

// Every binary a plan runs, made ready before the first leg: one build in the recipe's tree, or one per commit
// in its own git worktree (a cross-commit A/B); each built, its prepare steps run, and its driver and binary
// checked to exist. A site that fails ends the series with a named verdict before any leg runs.

// What the legs of one site need: template values, the binary, and the root the recipe's paths resolve in.
export interface ReadySite {
  vars: TemplateVars;
  binaryPath: string;
  root: string;
}

export type ReadyBinaries = { ok: true; byArm: Partial<Record<PlannedLeg['arm'], ReadySite>>; goldenPath: string; note: string | null } | { ok: false; verdict: VerdictRecord };

interface Common {
  inputs: Inputs;
  arch: string;
  jobs: number;
  checkpoint?: string | undefined;
  signal: AbortSignal;
}

// Cells a site's legs require: every flag a leg turns on that names the feature cells it needs.
function requiredCells(inputs: Inputs, legs: readonly PlannedLeg[]): string[] {
  const cells = new Set<string>();
  for (const leg of legs) for (const f of Object.values(inputs.recipe.flags)) if (leg.env[f.env] === f.on) f.requiresCells.forEach((c) => cells.add(c));
  return [...cells];
}

// The tree a site builds in (a commit's worktree is made here, when the series holds the lock).
async function rootOf(site: BinarySite, c: Common, run: SeriesRun): Promise<string> {
  if (site.tree.kind === 'recipe') return c.inputs.root;
  const t = site.tree;
  const tree = await ensureWorktree(run.deps.exec, t.top, t.commit, t.worktrees);
  run.deps.progress(`[nh-gate] build ${t.side} ${t.commit.slice(0, 12)} in ${tree}`);
  return rootInTree(t.top, c.inputs.root, tree);
}

// One site: tree → build (its log kept) → prepare steps → the driver and binary exist.
async function readySite(site: BinarySite, c: Common, legs: readonly PlannedLeg[], golden: string, run: SeriesRun): Promise<ReadySite | VerdictRecord> {
  const { inputs } = c;
  const root = await rootOf(site, c, run);
  const what = site.tree.kind === 'commit' ? `the ${site.tree.side} commit ${site.tree.commit}` : `recipe ${inputs.recipe.name}`;
  const built = await buildStep({
    inputs, arch: c.arch, jobs: c.jobs, deps: run.deps, runDir: run.r.runDir, signal: c.signal, extraRequiredCells: requiredCells(inputs, legs),
    root, logFile: site.logFile, ...(site.tree.kind === 'commit' ? { what } : {}),
  });
  run.r.build = built.build;
  if (built.failed) return built.failed;
  // {golden} is known to prepare steps too, so a recipe can have its driver parse the golden before a long load.
  const vars = { ...buildVars(inputs.recipe, root, c.arch, c.jobs), golden, ...(c.checkpoint ? { checkpoint: c.checkpoint } : {}) };
  const prepared = await prepareStep(inputs, vars, run.deps, c.signal, { root, what });
  if (prepared) return prepared;
  const binaryPath = expandString(inputs.recipe.driver.binary, vars, 'recipe.driver.binary');
  // A driver or binary that is not there is bad input (exit 2), named before the first leg, never a leg that "crashed".
  const driver0 = expandArgv(inputs.recipe.driver.argv, vars, 'recipe.driver.argv')[0]!;
  const absent = [driver0, binaryPath].find((p) => whichProgram(p, root) === null);
  if (absent !== undefined) return seriesVerdict('MISSING_BINARY', `${absent} does not exist or is not executable (recipe ${inputs.recipePath ?? inputs.recipe.name}: ${absent === driver0 ? 'driver.argv[0]' : 'driver.binary'}) — fix the recipe's path, or check that the build makes it`, 'VOID', 'usage');
  return { vars, binaryPath, root };
}

// Every site of the plan, in order; the first that fails decides the run.
export async function readyBinaries(plan: SeriesPlan, c: Common, run: SeriesRun): Promise<ReadyBinaries> {
  const handed = placeDriverGolden(c.inputs.driverGolden, c.inputs.goldenPath, run.r.runDir);
  const byArm: Partial<Record<PlannedLeg['arm'], ReadySite>> = {};
  for (const site of plan.binaries) {
    const legs = plan.legs.legs.filter((l) => site.arms.includes(l.arm));
    const ready = await readySite(site, c, legs, handed.path, run);
    if ('word' in ready) return { ok: false, verdict: ready };
    for (const arm of site.arms) byArm[arm] = ready;
  }
  return { ok: true, byArm, goldenPath: handed.path, note: handed.note };
}

import { join } from 'node:path';
import { buildRecipe } from '../build/build.js';
import { featureParserFor } from '../build/features.js';
import { buildExitClass } from '../build/diagnose.js';
import { expandArgv, type TemplateVars } from '../build/template.js';
import { describeEnd, exitedCleanly, lastLines } from '../exec/types.js';
import { writeAtomic } from '../io/atomic.js';
import type { RunResult, VerdictRecord } from '../results/types.js';
import { seriesVerdict } from './series/finish.js';
import type { GateDeps } from './deps.js';
import type { Inputs } from './setup.js';

// The steps every gate that runs a recipe's engine takes before its first process: build (its log in the run
// directory, its record on the result) and the recipe's prepare steps. Shared by the leg series (a3, ab) and
// serve, so a build failure or a failed prepare step reads the same whichever gate met it.


export interface BuildStepInput {
  inputs: Inputs;
  arch: string;
  jobs: number;
  deps: GateDeps;
  runDir: string;
  signal: AbortSignal;
  // Cells the arms under test need beyond the arch's (a device flag's requiresCells).
  extraRequiredCells?: string[];
  // Where to build when not the inputs' root (a cross-commit A/B's worktree), the log's name in the run
  // directory (default build.log), and what a failure names first (e.g. "the head commit abc…").
  root?: string;
  logFile?: string;
  what?: string;
}

// Builds the recipe for the arch: the build record for result.json, and the verdict when it did not build.
export async function buildStep(b: BuildStepInput): Promise<{ build: NonNullable<RunResult['build']>; failed: VerdictRecord | null }> {
  const { inputs } = b;
  b.deps.progress(`[nh-gate] build ${inputs.recipe.name} for arch ${b.arch}`);
  const rec = await buildRecipe({
    recipe: inputs.recipe, root: b.root ?? inputs.root, arch: b.arch, jobs: b.jobs, exec: b.deps.exec,
    parseFeatures: featureParserFor(inputs.profile), extraRequiredCells: b.extraRequiredCells ?? [],
    isTty: b.deps.isTty, signal: b.signal,
  });
  const buildLog = [...rec.probes.flatMap((p) => [`$ ${p.argv.join(' ')}`, ...p.log]), ...(rec.configure ? [`$ ${rec.configure.argv.join(' ')}`, ...rec.configure.log] : []), ...(rec.build ? [`$ ${rec.build.argv.join(' ')}`, ...rec.build.log] : [])];
  const logFile = b.logFile ?? 'build.log';
  writeAtomic(join(b.runDir, logFile), buildLog.join('\n') + '\n');
  const { configure: _c, build: _b, probes: _p, ...buildRest } = rec;
  const build = { ...buildRest, logFile };
  if (rec.verdict === 'BUILT') return { build, failed: null };
  const why = [`${b.what ? `${b.what} did not build: ` : ''}${rec.message}`, ...rec.cause.map((l) => `| ${l}`), ...(rec.prerequisite ? [`fix: ${rec.prerequisite.fix}`] : [])].join('\n  ');
  return { build, failed: seriesVerdict(rec.voidReason ?? 'BUILD_FAILED', why, 'VOID', buildExitClass(rec)) };
}

// The recipe's prepare steps in order; the first that fails is the run's VOID (PREPARE_FAILED), by name.
export async function prepareStep(inputs: Inputs, vars: TemplateVars, deps: GateDeps, signal: AbortSignal, at: { root?: string; what?: string } = {}): Promise<VerdictRecord | null> {
  for (const [i, argvT] of inputs.recipe.prepare.entries()) {
    const run = await deps.exec.run({ argv: expandArgv(argvT, vars, `recipe.prepare[${i}]`), cwd: at.root ?? inputs.root, timeoutS: 600 }, { signal });
    if (!exitedCleanly(run)) return seriesVerdict('PREPARE_FAILED', `prepare step ${i + 1} (${run.argv.join(' ')})${at.what ? ` of ${at.what}` : ''} failed: ${describeEnd(run)}; last lines: ${lastLines(run, 5).join(' | ')}`);
  }
  return null;
}

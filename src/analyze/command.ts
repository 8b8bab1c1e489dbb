import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { loadGolden, loadRecipe, readSamplesFile } from '../config/load.js';
import { rejudgeLegLog } from './rejudge.js';
import { resolveProfile } from '../config/profiles.js';
import { detectableProfiles, resolveAnalyzeProfile } from './profiles.js';
import { PACKAGE_ROOT } from './profileNames.js';
import type { Profile } from '../profiles/types.js';
import type { Baseline } from '../config/recipe.js';
import { describeHazards } from '../profiles/hostile.js';
import { MAX_LINE_CHARS } from '../exec/lines.js';
import type { UtilPoint } from '../quantity/busy.js';
import { readingsOfSource } from '../quantity/busySpans.js';
import { analyze } from './analyze.js';
import { analysisJson, renderAnalysisText } from './render.js';
import { detectProfile, readDriverLog } from '../gates/leg/logRead.js';
import { parseWindowArg } from './window.js';

export interface AnalyzeOptions {
  log: string;
  profile?: string;
  recipe?: string;
  window?: string;
  samples?: string;
  arch?: string;
  label?: string;
  json?: boolean;
}

export { PACKAGE_ROOT };

// Whether a built-in recipe carries this name (a detected profile reads with its recipe's baselines).
function recipeNamed(name: string, root: string): boolean {
  return existsSync(join(root, 'recipes', `${name}.json`));
}

// options → profile/recipe → streamed report → pure analysis → one rendering on stdout → exit class.
// `codeOf` is the CLI's exit-code table, passed down so nothing here imports the CLI; `out` receives stdout.
export async function runAnalyze(opts: AnalyzeOptions, codeOf: (c: ExitClass) => number, root: string = PACKAGE_ROOT, out: (s: string) => void = (s) => process.stdout.write(s)): Promise<ExitClass> {
  if (opts.profile && opts.recipe) throw new NhGateError('USAGE', 'pass --profile or --recipe, not both', 'a recipe names its profile; drop one of the two');
  const window = opts.window !== undefined ? parseWindowArg(opts.window) : null;
  let profile: Profile;
  let recipeName: string | null = null;
  let baselines: Baseline[] = [];
  const notes: string[] = [];
  const detected = opts.profile || opts.recipe ? null : detectProfile(opts.log, detectableProfiles(root));
  if (opts.profile) profile = resolveAnalyzeProfile(opts.profile, root);
  else if (detected && !recipeNamed(detected.ref, root)) {
    profile = resolveAnalyzeProfile(detected.ref, root);
    notes.push(`profile ${profile.name}: ${detected.how} (pass --profile or --recipe to choose another)`);
  } else {
    if (detected) notes.push(`profile ${detected.ref}: ${detected.how}; read with recipe ${detected.ref} for its baselines`);
    else if (!opts.recipe) notes.push('no line carries a known profile prefix: read with the nemotron-h recipe (pass --profile or --recipe to choose another)');
    const { recipe, path } = loadRecipe(opts.recipe ?? detected?.ref ?? 'nemotron-h', root);
    recipeName = recipe.name;
    baselines = recipe.baselines;
    profile = resolveProfile(recipe.profile, dirname(path)); // a profile file is named relative to its recipe
  }
  const { report, bytes, timed, hazards, header, trailer } = await readDriverLog(opts.log, profile);
  // A leg log with its header and trailer is judged again by the leg's own judge, against the leg's golden.
  let leg = null;
  if (header && trailer && header.golden) {
    try {
      leg = rejudgeLegLog(opts.log, report, header, trailer, loadGolden(header.golden).golden);
      notes.push(`leg log: re-judged by the harness against the leg's golden ${header.golden} (mode ${header.mode})`);
    } catch (err) {
      notes.push(`leg log: its golden ${header.golden} could not be read (${err instanceof NhGateError ? err.message : String(err)}) — judged from the engine's own counters instead`);
    }
  } else if (header && !trailer) notes.push('leg log without its trailer (the leg did not finish writing): judged from the engine\'s own counters');
  let samples = null;
  if (opts.samples) {
    const file = await readSamplesFile(opts.samples);
    const points: UtilPoint[] = [];
    for (const s of file.samples) if (s.kind === 'util') points.push({ tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS });
    samples = { points, garbage: file.garbage, readings: readingsOfSource(file.header?.source), ...(file.header?.nominalPeriodMs ? { nominalPeriodS: file.header.nominalPeriodMs / 1000 } : {}) };
  }
  const a = analyze({ report, timed, window, samples, arch: opts.arch ?? null, baselines, leg });
  a.notes.unshift(...notes);
  const hostile = describeHazards(hazards, MAX_LINE_CHARS);
  if (hostile) a.notes.push(hostile);
  const ctx = {
    log: opts.log,
    label: opts.label ?? null,
    profile: profile.name,
    recipe: recipeName,
    arch: opts.arch ?? null,
    timed,
    bytes,
    samplesPath: opts.samples ?? null,
    garbage: samples?.garbage ?? [],
    exitCode: codeOf(a.exitClass),
  };
  if (opts.json) out(JSON.stringify(analysisJson(a, report, ctx)) + '\n');
  else out(renderAnalysisText(a, report, ctx));
  if (!opts.json && ctx.garbage.length > 0) process.stderr.write(`nh-gate: ${opts.samples}: ${ctx.garbage.length} garbage line(s) skipped (listed above)\n`);
  return a.exitClass;
}

import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { loadRecipe, readSamplesFile } from '../config/load.js';
import { resolveProfile } from '../profiles/registry.js';
import type { Profile } from '../profiles/types.js';
import type { Baseline } from '../config/recipe.js';
import { describeHazards } from '../profiles/hostile.js';
import { MAX_LINE_CHARS } from '../exec/lines.js';
import type { UtilPoint } from '../quantity/busy.js';
import { analyze } from './analyze.js';
import { analysisJson, renderAnalysisText } from './render.js';
import { readDriverLog } from './stream.js';
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

// Where built-in recipes live: the package root, two levels above this module in src/ and in dist/.
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// options → profile/recipe → streamed report → pure analysis → one rendering on stdout → exit class.
export async function runAnalyze(opts: AnalyzeOptions, root: string = PACKAGE_ROOT): Promise<ExitClass> {
  if (opts.profile && opts.recipe) throw new NhGateError('USAGE', 'pass --profile or --recipe, not both', 'a recipe names its profile; drop one of the two');
  const window = opts.window !== undefined ? parseWindowArg(opts.window) : null;
  let profile: Profile;
  let recipeName: string | null = null;
  let baselines: Baseline[] = [];
  if (opts.profile) profile = resolveProfile(opts.profile, process.cwd());
  else {
    const { recipe, path } = loadRecipe(opts.recipe ?? 'nemotron-h', root);
    recipeName = recipe.name;
    baselines = recipe.baselines;
    profile = resolveProfile(recipe.profile, dirname(path)); // a profile file is named relative to its recipe
  }
  const { report, bytes, timed, hazards } = await readDriverLog(opts.log, profile);
  let samples = null;
  if (opts.samples) {
    const file = await readSamplesFile(opts.samples);
    const points: UtilPoint[] = [];
    for (const s of file.samples) if (s.kind === 'util') points.push({ tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS });
    samples = { points, garbage: file.garbage, ...(file.header?.nominalPeriodMs ? { nominalPeriodS: file.header.nominalPeriodMs / 1000 } : {}) };
  }
  const a = analyze({ report, timed, window, samples, arch: opts.arch ?? null, baselines });
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
  };
  if (opts.json) process.stdout.write(JSON.stringify(analysisJson(a, report, ctx)) + '\n');
  else process.stdout.write(renderAnalysisText(a, report, ctx));
  if (!opts.json && ctx.garbage.length > 0) process.stderr.write(`nh-gate: ${opts.samples}: ${ctx.garbage.length} garbage line(s) skipped (listed above)\n`);
  return a.exitClass;
}

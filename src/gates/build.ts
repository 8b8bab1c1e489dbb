import { buildRecipe } from '../build/build.js';
import { featureParserFor } from '../build/features.js';
import type { BuildRecord } from '../build/types.js';
import { findRecipe } from '../config/load.js';
import { declaredFlag } from '../config/recipe.js';
import { resolveProfile } from '../config/profiles.js';
import type { ExitClass } from '../verdict/words.js';
import { buildExitClass } from '../build/diagnose.js';
import { NhGateError } from '../errors.js';
import type { GateDeps } from './deps.js';
import { checkArch } from './arch.js';

export interface BuildCommandOptions {
  recipe?: string | undefined;
  arch?: string | undefined;
  jobs: number;
  // Flags whose requiresCells must be ENABLED too (the arm you intend to run).
  flags?: string[] | undefined;
}

// What a failed build prints on screen: its error lines (or, when none is recognisable, its last lines).
export function failureLines(rec: BuildRecord): string[] {
  const shown = rec.cause.length ? rec.cause : (rec.build?.lastLines ?? rec.configure?.lastLines ?? []);
  return shown.map((l) => `  | ${l}`);
}

// nh-gate build: the arch claim checked, probes, configure, feature cells, build, output hashes.
export async function runBuild(o: BuildCommandOptions, deps: GateDeps): Promise<{ record: BuildRecord | null; exitClass: ExitClass; lines: string[] }> {
  const ref = o.recipe ?? 'nh-ref';
  // The one path rule (config/locate.ts), as a3 and ab find it: a path against the working directory, a name in
  // this project's recipes/, then among the built-ins; the root is the recipe's real place, as setup takes it.
  const { recipe, path, root } = findRecipe(ref, process.cwd());
  const silicon = await deps.detectSilicon();
  const arch = checkArch(o.arch, silicon, recipe);
  if (!arch.ok) {
    if (arch.usage) throw new NhGateError('USAGE', arch.message, 'pass --arch cpu, 90, 90a, 121a, 110 …');
    return { record: null, exitClass: 'void', lines: [`VOID — NO_SUCH_SILICON: ${arch.message}`] };
  }
  const extra: string[] = [];
  for (const f of o.flags ?? []) {
    const flag = declaredFlag(recipe, f, path);
    extra.push(...flag.requiresCells);
  }
  const rec = await buildRecipe({ recipe, root, arch: arch.arch, jobs: o.jobs, exec: deps.exec, parseFeatures: featureParserFor(resolveProfile(recipe.profile, root)), extraRequiredCells: extra, isTty: deps.isTty });
  const lines = [
    `nh-gate build — recipe ${recipe.name} — arch ${arch.arch}${arch.note ? ` (${arch.note})` : ''}`,
    ...rec.probes.map((p) => `${p.name}: ${p.ok ? `ok${p.end === 'reused' ? ' (reused: same program and environment)' : ''}` : `FAILED (${p.end}${p.expect && !p.matched ? `, output did not match /${p.expect}/` : ''})`}`),
    ...(rec.configure ? [`configure: ${rec.configure.end} in ${rec.configure.durationS.toFixed(1)} s`] : []),
    ...rec.cells.map((c) => `  cell ${c.name}: ${c.detail}${rec.requiredCells.includes(c.name) ? ' (required)' : ''}`),
    ...(rec.build ? [`build: ${rec.build.end} in ${rec.build.durationS.toFixed(1)} s; ${rec.noWork ? 'nothing to rebuild (ninja: no work to do)' : `${rec.stepsRun} step(s) run`}; compile errors ${rec.compileErrors}; ENOSPC hits ${rec.enospcHits}`] : []),
    ...rec.outputs.map((x) => `  ${x.path}: ${x.sha256 ?? 'MISSING'}`),
    ...(rec.verdict === 'BUILT' ? [] : failureLines(rec)),
    `${rec.verdict}${rec.voidReason ? ` (${rec.voidReason})` : ''}: ${rec.message}`,
    ...(rec.prerequisite ? [`  fix: ${rec.prerequisite.fix}`] : []),
  ];
  const exitClass: ExitClass = buildExitClass(rec);
  return { record: rec, exitClass, lines };
}

import { resolve } from 'node:path';
import type { Recipe } from '../config/recipe.js';
import type { Executor, ProcessRun } from '../exec/types.js';
import { describeEnd, exitedCleanly, lastLines } from '../exec/types.js';
import { spanS } from '../exec/clock.js';
import { NhGateError } from '../errors.js';
import { expandArgv, expandString, type TemplateVars } from './template.js';
import { progressWriter, readBuildLog } from './log.js';
import { sha256File } from '../io/hash.js';
import { canonicalPath } from '../io/canonical.js';
import { cellStates, type FeatureParser } from './features.js';
import { checkRequiredCells } from '../profiles/features.js';
import type { BuildRecord, ProbeRecord, StepRecord } from './types.js';
import { diagnoseFailure } from './diagnose.js';
import { configureKey, forgetConfigure, rememberConfigure, reusableConfigure } from './configureMemo.js';
import { probeKey, programIdentity, readProbeMemo, rememberProbes, type ProbeOutput } from './probeMemo.js';

export interface BuildOptions {
  recipe: Recipe;
  // Directory the recipe's relative paths resolve against ({root}).
  root: string;
  arch: string;
  jobs: number;
  exec: Executor;
  parseFeatures: FeatureParser;
  // Cells the arm under test needs beyond the arch's (e.g. a device flag's requiresCells).
  extraRequiredCells?: string[];
  isTty?: boolean;
  writeProgress?: (s: string) => void;
  signal?: AbortSignal;
}

// The template variables of a build: paths resolved against the recipe root. {cwd} lets a recipe that
// ships with nh-gate build the engine checkout it is run from (recipes/nemotron-h.json: sourceDir "{cwd}").
export function buildVars(recipe: Recipe, root: string, arch: string, jobs: number, cwd: string = process.cwd()): TemplateVars {
  const sourceDir = canonicalPath(resolve(root, expandString(recipe.sourceDir, { root, arch, cwd }, 'recipe.sourceDir')));
  const buildDir = canonicalPath(resolve(root, expandString(recipe.buildDir, { root, arch, sourceDir }, 'recipe.buildDir')));
  return { root, cwd, sourceDir, buildDir, arch, jobs: String(jobs) };
}

function step(name: string, run: ProcessRun): StepRecord {
  return {
    name, argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut,
    durationS: spanS(run.startNs, run.endNs), end: describeEnd(run), lastLines: lastLines(run),
    log: run.lines.map((l) => l.text),
  };
}

// configure → cells → build → output hashes, with probes first. Never throws for a failing compiler:
// the record says FAILED or VOID and why. Throws only for a recipe that cannot be expanded.
export async function buildRecipe(o: BuildOptions): Promise<BuildRecord> {
  const { recipe, arch } = o;
  const archCfg = recipe.archs[arch];
  if (!archCfg && Object.keys(recipe.archs).length > 0) {
    throw new NhGateError('USAGE', `recipe '${recipe.name}' has no build for arch '${arch}'`, `use --arch with one of: ${Object.keys(recipe.archs).join(', ')}`);
  }
  const vars = buildVars(recipe, o.root, arch, o.jobs);
  const rec: BuildRecord = {
    recipe: recipe.name, arch, sourceDir: vars.sourceDir!, buildDir: vars.buildDir!, jobs: o.jobs,
    probes: [], configure: null, build: null, cells: [], requiredCells: [], missingCells: [],
    compileErrors: 0, enospcHits: 0, noWork: false, stepsRun: 0, outputs: [],
    verdict: 'BUILT', voidReason: null, message: '', cause: [], prerequisite: null,
  };
  const hooks = o.signal ? { signal: o.signal } : {};

  // Version probes a BUILT build of this directory already ran on the same program and environment (probeMemo.ts).
  const probeMemo = readProbeMemo(rec.buildDir);
  const probesToKeep = new Map<string, ProbeOutput>();
  for (const [i, p] of recipe.probes.entries()) {
    if (p.when === 'gpu' && arch === 'cpu') continue;
    const argv = expandArgv(p.argv, vars, `recipe.probes[${i}].argv`);
    const key = probeKey(argv, programIdentity(argv[0] ?? '', o.root), process.env);
    const probe = await runProbe(o, p, argv, key !== null ? probeMemo.get(key) : undefined, hooks);
    rec.probes.push(probe);
    if (probe.ok && key !== null) probesToKeep.set(key, { log: probe.log, lastLines: probe.lastLines });
    if (!probe.ok) {
      return { ...rec, verdict: 'VOID', voidReason: 'PROBE_FAILED', message: `toolchain probe '${p.name}' failed (${probe.end}${p.expect && !probe.matched ? `; output did not match /${p.expect}/` : ''}) — the toolchain this recipe needs is not here` };
    }
  }

  const configureArgv = [...expandArgv(recipe.configure, vars, 'recipe.configure'), ...expandArgv(archCfg?.configureArgv ?? [], vars, `recipe.archs.${arch}.configureArgv`)];
  // The configure inherits this process's environment (o.exec.run passes no env of its own).
  const memoKey = configureKey(configureArgv, rec.probes.map((p) => p.log.join('\n')), process.env);
  const reused = reusableConfigure(rec.buildDir, memoKey);
  forgetConfigure(rec.buildDir); // written back only once this build is BUILT
  const conf = reused ? null : await o.exec.run({ argv: configureArgv, cwd: o.root, timeoutS: 600 }, hooks);
  rec.configure = conf ? step('configure', conf) : reusedStep(configureArgv, rec.buildDir, reused!);
  if (conf && !exitedCleanly(conf)) {
    const facts = readBuildLog(rec.configure.log);
    const d = diagnoseFailure(recipe, rec.configure.log);
    return { ...rec, enospcHits: facts.enospcHits, verdict: 'FAILED', cause: d.cause, prerequisite: d.prerequisite, message: `configure failed (${rec.configure.end})${d.prerequisite ? `: ${d.prerequisite.name} is missing` : ''}` };
  }
  const required = [...new Set([...(archCfg?.requiredCells ?? []), ...(o.extraRequiredCells ?? [])])];
  rec.requiredCells = required;
  const degraded = checkCells(rec, o.parseFeatures(rec.configure.log));
  if (degraded) return degraded;

  const progress = progressWriter(o.isTty ?? false, o.writeProgress ?? ((s) => process.stderr.write(s)));
  const build = await o.exec.run({ argv: expandArgv(recipe.build, vars, 'recipe.build'), cwd: o.root, timeoutS: 3600 }, { ...hooks, onLine: (l) => progress.line(l.text) });
  progress.end();
  rec.build = step('build', build);
  const facts = readBuildLog([...rec.configure.log, ...rec.build.log]);
  Object.assign(rec, { compileErrors: facts.compileErrors, enospcHits: facts.enospcHits, noWork: facts.noWork, stepsRun: facts.stepsRun });
  rec.outputs = await Promise.all(recipe.outputs.map(async (p, i) => {
    const path = resolve(o.root, expandString(p, vars, `recipe.outputs[${i}]`));
    return { path, sha256: await sha256File(path) };
  }));
  if (!exitedCleanly(build)) {
    const d = diagnoseFailure(recipe, rec.build.log);
    return { ...rec, verdict: 'FAILED', cause: d.cause, prerequisite: d.prerequisite, message: `build failed (${rec.build.end}; ${facts.compileErrors} compile error(s), ${facts.enospcHits} ENOSPC hit(s))${d.prerequisite ? `: ${d.prerequisite.name} is missing` : ''}` };
  }
  const missing = rec.outputs.filter((x) => x.sha256 === null).map((x) => x.path);
  if (missing.length > 0) {
    return { ...rec, verdict: 'FAILED', message: `build exited 0 but declared output(s) are missing: ${missing.join(', ')}` };
  }
  // A reused configure whose build re-ran CMake (a CMakeLists.txt changed) has its feature table from that run.
  const rerun = reused ? o.parseFeatures(rec.build.log) : null;
  const tableLog = rerun && rerun.cells.length > 0 ? rec.build.log : rec.configure.log;
  if (tableLog === rec.build.log) {
    const degradedNow = checkCells(rec, rerun!);
    if (degradedNow) return degradedNow;
  }
  rememberConfigure(rec.buildDir, memoKey, tableLog);
  rememberProbes(rec.buildDir, probesToKeep);
  rec.message = `${facts.noWork ? 'nothing to rebuild (ninja: no work to do)' : `built ${facts.stepsRun} step(s)`}${reused ? '; configure reused (same argv and toolchain)' : ''}`;
  return rec;
}

// The one required-cell rule (arch-aware: ENABLED for [90] does not serve a 121a build), recorded on the build;
// the DEGRADED_BUILD record when a required cell is missing.
function checkCells(rec: BuildRecord, table: ReturnType<FeatureParser>): BuildRecord | null {
  const check = checkRequiredCells(table, rec.requiredCells, rec.arch);
  rec.cells = cellStates(table);
  rec.missingCells = check.missing.map((m) => m.cell);
  if (check.ok) return null;
  return { ...rec, verdict: 'VOID', voidReason: 'DEGRADED_BUILD', message: `required feature cell(s) not ENABLED for ${rec.arch}: ${check.missing.map((m) => `${m.cell} (${m.why})`).join(', ')}` };
}

// One toolchain probe: its remembered output where the memo has it and it still matches, else a run.
async function runProbe(o: BuildOptions, p: Recipe['probes'][number], argv: string[], kept: ProbeOutput | undefined, hooks: { signal?: AbortSignal }): Promise<ProbeRecord> {
  const matches = (log: string[]): boolean => (p.expect ? new RegExp(p.expect, 'm').test(log.join('\n')) : true);
  if (kept && matches(kept.log)) return { ...reusedProbe(`probe ${p.name}`, argv, kept), expect: p.expect ?? null, matched: true, ok: true };
  const run = await o.exec.run({ argv, cwd: o.root, timeoutS: 60 }, hooks);
  const matched = matches(run.lines.map((l) => l.text));
  return { ...step(`probe ${p.name}`, run), expect: p.expect ?? null, matched, ok: exitedCleanly(run) && matched };
}

// A version probe answered from the memo: not run, the output of its last run on the same program kept.
function reusedProbe(name: string, argv: string[], kept: ProbeOutput): StepRecord {
  return { name, argv, exitCode: 0, signal: null, timedOut: false, durationS: 0, end: 'reused', lastLines: kept.lastLines, log: kept.log };
}

// The configure step of a build directory still configured under the same key: not run, its last log kept.
function reusedStep(argv: string[], buildDir: string, log: string[]): StepRecord {
  const note = `(not run: ${buildDir} is configured with this argv and toolchain; the feature table below is from its last configure, and the build re-runs CMake if a CMakeLists.txt changed)`;
  return { name: 'configure', argv, exitCode: 0, signal: null, timedOut: false, durationS: 0, end: 'reused', lastLines: [note], log: [note, ...log] };
}

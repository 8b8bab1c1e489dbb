import { TOOL } from '../version.js';
import { join } from 'node:path';
import { appendFileSync, rmSync } from 'node:fs';
import type { Plan } from '../plan/plan.js';
import { describePlan } from '../plan/plan.js';
import { buildRecipe, buildVars } from '../build/build.js';
import { featureParserFor } from '../build/features.js';
import { buildExitClass } from '../build/diagnose.js';
import { expandArgv, expandString } from '../build/template.js';
import { monoNs } from '../exec/clock.js';
import { whichProgram } from '../exec/which.js';
import { acquireLock, lockPath } from '../exec/lock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { describeEnd, exitedCleanly, lastLines } from '../exec/types.js';
import { createRunDir } from '../results/write.js';
import { writeAtomic } from '../io/atomic.js';
import { saveRun, type PlotInputs } from '../report/save.js';
import { appendLedger } from '../results/ledger.js';
import { RESULT_SCHEMA_VERSION, type RunResult, type VerdictRecord } from '../results/types.js';
import { renderSummaryMd } from '../report/summary.js';
import { NhGateError } from '../errors.js';
import type { ExitClass, VerdictWord } from '../verdict/words.js';
import { formatReason, reason, type VoidCode } from '../verdict/reasons.js';
import type { GateDeps } from './deps.js';
import type { Inputs } from './setup.js';
import { checkArch, checkArchForNodes } from './arch.js';
import { runLeg, type LegOutcome } from './leg/leg.js';
import { checkResumable, loadResume } from './resume.js';
import { placeDriverGolden } from './driverGolden.js';
import { requireCheckpoint } from './checkpoint.js';
import { checkSpace, takeReserve, type Reserve } from '../results/space.js';
import { isDiskFault, diskFailure } from './diskFailure.js';
import { settleStaleGroup } from '../exec/staleGroup.js';
import { markDeadRuns, thisHarness } from '../results/deadRuns.js';

export interface SeriesOptions {
  command: 'a3' | 'ab';
  argv: string[];
  inputs: Inputs;
  archClaim?: string | undefined;
  jobs: number;
  // Results base (.nh-gate by default): runs/ and ledger.jsonl live under it.
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  gateName: string;
  // The plan, once the arch is known (a device arch turns device-arm flags on for a3).
  plan: (arch: string) => Plan;
  // Run-level figures and verdict from the legs so far (called after every leg and at the end).
  finalize: (r: RunResult, legs: LegOutcome[], done: boolean) => Pick<RunResult, 'quantities' | 'comparison' | 'verdict' | 'notes'>;
  // Extra plot inputs from the legs (A/B distributions).
  abPlotTitle?: string;
  // --resume RUN_DIR: keep that run's finished legs, run only the missing ones into it.
  resume?: string | undefined;
  // A sequential A/B stops as soon as this says the verdict is decided (checked after every leg).
  stopWhen?: (legs: LegOutcome[]) => boolean;
}

export interface SeriesOutcome {
  result: RunResult;
  exitClass: ExitClass;
}

function voidVerdict(code: VoidCode, message: string, word: VerdictWord = 'VOID', exitClass: ExitClass = 'void'): VerdictRecord {
  return { word, exitClass, reasons: [formatReason(reason(code, message))] };
}

// options → silicon/arch → lock → build → prepare → legs (saved after each) → verdict → ledger.
// One series holds the GPU lock from the build to the last leg.
export async function runSeries(o: SeriesOptions, deps: GateDeps): Promise<SeriesOutcome> {
  // Installed first, so a Ctrl-C during detection or the build also stops cleanly.
  const interrupt = onInterrupt((sig) => process.stderr.write(`\nnh-gate: ${sig}: stopping after killing the running leg; finished legs are kept\n`));
  try {
    return await series(o, deps, interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}

async function series(o: SeriesOptions, deps: GateDeps, signal: AbortSignal): Promise<SeriesOutcome> {
  const { inputs } = o;
  const originNs = monoNs();
  const now = deps.now();
  const silicon = await deps.detectSilicon();
  const arch = deps.legRunner?.kind === 'slurm' ? checkArchForNodes(o.archClaim) : checkArch(o.archClaim, silicon, inputs.recipe);
  if (!arch.ok && arch.usage) throw new NhGateError('USAGE', arch.message, 'pass --arch cpu, 90, 90a, 121a, 110 … (the compute capability of the target GPU)');
  if (arch.ok) requireCheckpoint(inputs.recipe, o.checkpoint);
  const resumed = o.resume ? loadResume(o.resume, o.command) : null;
  const runDir = resumed ? resumed.runDir : createRunDir(o.resultsBase, o.gateName, now);
  // Taken once the lock is held; until then there is nothing to free.
  let reserve: Reserve = { release() {} };
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: o.command, argv: o.argv,
    runDir, startedAt: now.toISOString(), finishedAt: null, status: 'running',
    recipe: { name: inputs.recipe.name, path: inputs.recipePath },
    golden: { name: inputs.golden.name, revision: inputs.golden.checkpoint.revision, path: inputs.goldenPath },
    gate: inputs.gate ? { name: inputs.gate.gate.name, path: inputs.gate.path, sha256: inputs.gate.sha256, hypothesis: inputs.gate.gate.hypothesis ?? null } : null,
    arch: arch.arch, silicon, build: null, plan: null, legs: [], quantities: {}, comparison: null,
    verdict: { word: 'VOID', exitClass: 'void', reasons: ['not finished'] }, notes: [], harness: thisHarness(),
  };
  // The series' own notes; the gate's finalize adds its notes beside them on every call (never filtered by text).
  const seriesNotes: string[] = [];
  const apply = (f: ReturnType<SeriesOptions['finalize']>): void => {
    Object.assign(r, { ...f, notes: [...seriesNotes, ...f.notes] });
  };
  // Runs left "running" by an nh-gate that died (SIGKILL, OOM) are marked so, by name.
  for (const note of markDeadRuns(o.resultsBase, runDir)) {
    seriesNotes.push(note);
    r.notes.push(note);
    deps.progress(`nh-gate: ${note}`);
  }
  const plots: PlotInputs = { timelines: [], ab: o.abPlotTitle ? { title: o.abPlotTitle, legs: [] } : null };
  const finish = async (status: RunResult['status']): Promise<SeriesOutcome> => {
    r.status = status;
    r.finishedAt = deps.now().toISOString();
    if (status !== 'failed') reserve.release();
    try {
      // A failed run writes its record first and no plots: the space left is for result.json.
      await saveRun(r, status === 'failed' ? { timelines: [], ab: null } : plots, deps.live);
    } catch (err) {
      if (!isDiskFault(err)) throw err;
      if (status !== 'failed') return finish(diskFailure(r, err, reserve));
      writeAtomic(join(runDir, 'result.json'), JSON.stringify({ schemaVersion: r.schemaVersion, status: r.status, runDir, verdict: r.verdict, legs: r.legs.length }) + '\n');
    }
    try {
      appendLedger(o.resultsBase, r);
    } catch (err) {
      if (!isDiskFault(err)) throw err;
      deps.progress(`nh-gate: ${err.code}: the ledger line was not appended (${err.message}); ${runDir} holds the run`);
    }
    const stepSummary = process.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) appendFileSync(stepSummary, renderSummaryMd(r, []) + '\n');
    return { result: r, exitClass: r.verdict.exitClass };
  };

  if (!arch.ok) {
    r.verdict = voidVerdict('NO_SUCH_SILICON', arch.message);
    return finish('complete');
  }
  if (arch.note) seriesNotes.push(arch.note);
  const plan = o.plan(arch.arch);
  r.plan = { text: describePlan(plan), order: plan.order, seed: plan.seed, legs: plan.legs.length, warmupLegs: inputs.gate?.gate.warmupLegs ?? 0 };
  if (resumed) {
    checkResumable(resumed, r.plan.text, r.gate?.sha256 ?? null, inputs.recipe.name);
    seriesNotes.push(`resumed ${runDir}: ${resumed.kept.size} finished leg(s) kept, ${plan.legs.length - resumed.kept.size} to run`);
  }
  const timeoutS = o.timeoutS ?? inputs.recipe.driver.timeoutS;
  if (deps.legRunner?.preflight && plan.legs[0]) {
    try {
      await deps.legRunner.preflight({ runDir, arch: arch.arch, scopeLegs: plan.legs.length }, { arm: plan.legs[0].arm, timeoutS });
    } catch (err) {
      if (!resumed) rmSync(runDir, { recursive: true, force: true });
      throw err;
    }
  }

  const lock = acquireLock(lockPath(), `nh-gate ${o.command} (${o.gateName})`);
  if (lock.replacedStale) seriesNotes.push(`replaced a stale GPU lock left by pid ${lock.replacedStale.pid} (${lock.replacedStale.command})`);
  const staleGroup = lock.replacedStale ? await settleStaleGroup(lock.replacedStale) : null;
  if (staleGroup) {
    seriesNotes.push(`STALE_LEG_GROUP: ${staleGroup.why}`);
    if (staleGroup.action !== 'gone') deps.progress(`nh-gate: ${staleGroup.why}`);
  }
  try {
    reserve = takeReserve(runDir);
    // Before the build and the first leg: free space against the logs the legs are expected to write.
    const short = checkSpace(runDir, plan.legs.length, 0);
    if (short) throw new NhGateError('DISK_FULL', `${short}; nothing was run`, 'free space or pass --results-dir DIR on a larger filesystem (or set NH_GATE_EXPECT_LOG_BYTES if the legs log less)');
    const jobs = o.jobs;
    const requiredForArms = new Set<string>();
    for (const leg of plan.legs) for (const f of Object.values(inputs.recipe.flags)) if (leg.env[f.env] === f.on) f.requiresCells.forEach((c) => requiredForArms.add(c));
    deps.progress(`[nh-gate] build ${inputs.recipe.name} for arch ${arch.arch}`);
    const b = await buildRecipe({
      recipe: inputs.recipe, root: inputs.root, arch: arch.arch, jobs, exec: deps.exec,
      parseFeatures: featureParserFor(inputs.profile), extraRequiredCells: [...requiredForArms],
      isTty: deps.isTty, signal: signal,
    });
    const buildLog = [...b.probes.flatMap((p) => [`$ ${p.argv.join(' ')}`, ...p.log]), ...(b.configure ? [`$ ${b.configure.argv.join(' ')}`, ...b.configure.log] : []), ...(b.build ? [`$ ${b.build.argv.join(' ')}`, ...b.build.log] : [])];
    writeAtomic(join(runDir, 'build.log'), buildLog.join('\n') + '\n');
    const { configure: _c, build: _b, probes: _p, ...buildRest } = b;
    r.build = { ...buildRest, logFile: 'build.log' };
    if (b.verdict !== 'BUILT') {
      const why = [b.message, ...b.cause.map((l) => `| ${l}`), ...(b.prerequisite ? [`fix: ${b.prerequisite.fix}`] : [])].join('\n  ');
      r.verdict = voidVerdict(b.voidReason ?? 'BUILD_FAILED', why, 'VOID', buildExitClass(b));
      return await finish('complete');
    }

    const handed = placeDriverGolden(inputs.driverGolden, inputs.goldenPath, runDir);
    if (handed.note) seriesNotes.push(handed.note);
    // {golden} is known to prepare steps too, so a recipe can have its driver parse the golden before a long load.
    const vars = { ...buildVars(inputs.recipe, inputs.root, arch.arch, jobs), golden: handed.path, ...(o.checkpoint ? { checkpoint: o.checkpoint } : {}) };
    for (const [i, argvT] of inputs.recipe.prepare.entries()) {
      const run = await deps.exec.run({ argv: expandArgv(argvT, vars, `recipe.prepare[${i}]`), cwd: inputs.root, timeoutS: 600 }, { signal: signal });
      if (!exitedCleanly(run)) {
        r.verdict = voidVerdict('PREPARE_FAILED', `prepare step ${i + 1} (${run.argv.join(' ')}) failed: ${describeEnd(run)}; last lines: ${lastLines(run, 5).join(' | ')}`);
        return await finish('complete');
      }
    }

    const binaryPath = expandString(inputs.recipe.driver.binary, vars, 'recipe.driver.binary');
    // A driver or binary that is not there is bad input (exit 2), named before the first leg, never a leg that "crashed".
    const driver0 = expandArgv(inputs.recipe.driver.argv, vars, 'recipe.driver.argv')[0]!;
    const absent = [driver0, binaryPath].find((p) => whichProgram(p, inputs.root) === null);
    if (absent !== undefined) {
      r.verdict = voidVerdict('MISSING_BINARY', `${absent} does not exist or is not executable (recipe ${inputs.recipePath ?? inputs.recipe.name}: ${absent === driver0 ? 'driver.argv[0]' : 'driver.binary'}) — fix the recipe's path, or check that the build makes it`, 'VOID', 'usage');
      return await finish('complete');
    }
    const outcomes: LegOutcome[] = [];
    const ctx = {
      deps, recipe: inputs.recipe, profile: inputs.profile, golden: inputs.golden, goldenPath: handed.path, judgedGoldenPath: inputs.goldenPath, vars,
      binaryPath, runDir, originNs, silicon, sampleGpu: silicon.kind === 'gpu' && arch.arch !== 'cpu', voidIfThrottled: inputs.gate?.gate.voidIfThrottled ?? false, voidIfCpuContended: inputs.gate?.gate.voidIfCpuContended ?? false, ...(inputs.gate?.gate.witness ? { requireWitness: inputs.gate.gate.witness } : {}), deviceIndex: 0,
      timeoutS, signal: signal,
      onSpawn: (pid: number) => lock.recordLeg(pid),
      planLegs: plan.legs.length, warmupLegs: inputs.gate?.gate.warmupLegs ?? 0,
    };
    // On disk before the first leg: should nh-gate die mid-leg, a later run finds this one "running" and marks it.
    await saveRun(r, plots, deps.live);
    let largestLog = 0;
    for (const [done, planned] of plan.legs.entries()) {
      if (signal.aborted) break;
      const short = checkSpace(runDir, plan.legs.length - done, largestLog);
      if (short) throw new NhGateError('DISK_FULL', `${short}; stopped before leg ${planned.index + 1}`, 'free space or pass --results-dir DIR on a larger filesystem');
      const out = resumed?.kept.get(planned.index) ?? await runLeg(ctx, planned);
      largestLog = Math.max(largestLog, (out.log?.bytes ?? 0) + (out.log?.droppedBytes ?? 0));
      if (out.record.process.interrupted) {
        seriesNotes.push(`leg ${planned.index + 1} was interrupted and is not counted`);
        break;
      }
      outcomes.push(out);
      r.legs = outcomes.map((x) => x.record);
      if (out.timeline) plots.timelines.push(out.timeline);
      if (plots.ab) plots.ab.legs.push(out.abPoint);
      apply(o.finalize(r, outcomes, false));
      if (out.log?.fault) throw new NhGateError(out.log.fault, `leg ${planned.index + 1}'s log ${out.record.logFile} stopped after ${out.log.bytes} bytes: ${out.log.error}`, 'free space or pass --results-dir DIR on a larger filesystem');
      await saveRun(r, plots, deps.live);
      if (o.stopWhen?.(outcomes)) break;
    }
    const interrupted = signal.aborted;
    apply(o.finalize(r, outcomes, !interrupted));
    if (interrupted) {
      r.verdict = { word: 'VOID', exitClass: 'void', reasons: [`${formatReason(reason('PARTIAL', `interrupted after ${outcomes.length} of ${plan.legs.length} leg(s); the finished legs are kept in ${runDir}`))}`, ...r.verdict.reasons] };
    }
    return await finish(interrupted ? 'interrupted' : 'complete');
  } catch (err) {
    // A full or read-only results disk mid-run: the legs on disk are kept, the run is recorded as failed.
    if (!isDiskFault(err)) throw err;
    return await finish(diskFailure(r, err, reserve));
  } finally {
    // The executor's allocation (a Slurm lease) ends with the series, however it ends.
    await deps.legRunner?.release?.().catch((err: unknown) => deps.progress(`nh-gate: the Slurm allocation was not released: ${(err as Error).message}`));
    reserve.release();
    lock.release();
  }
}

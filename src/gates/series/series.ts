import { rmSync } from 'node:fs';
import { TOOL } from '../../version.js';
import { monoNs } from '../../exec/clock.js';
import { acquireLock, lockPath, type HeldLock } from '../../exec/lock.js';
import { onInterrupt } from '../../exec/interrupt.js';
import { settleStaleGroup } from '../../exec/staleGroup.js';
import { NhGateError } from '../../errors.js';
import { markDeadRuns, thisHarness } from '../../results/deadRuns.js';
import { checkSpace, takeReserve } from '../../results/space.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../../results/types.js';
import { createRunDir } from '../../results/write.js';
import type { Silicon } from '../../silicon/types.js';
import { checkArch, checkArchForNodes } from '../arch.js';
import { requireCheckpoint } from '../checkpoint.js';
import type { GateDeps } from '../deps.js';
import { readyBinaries } from './binaries.js';
import { diskFailure, isDiskFault } from './diskFailure.js';
import { finish, seriesVerdict, type SeriesRun } from './finish.js';
import { runLegs } from './legs.js';
import { checkResumable, loadResume, type Resumed } from './resume.js';
import type { SeriesOutcome, SeriesPlan, SeriesSpec } from './types.js';

export type { SeriesOutcome, SeriesSpec, SeriesPlan, Judgement, BinarySite } from './types.js';

// The one scheduler (a3 and every A/B form): options → silicon/arch → plan → lock → binaries → legs (saved
// and judged after each) → verdict → ledger. One series holds the GPU lock from the build to the last leg.
export async function runSeries(o: SeriesSpec, deps: GateDeps): Promise<SeriesOutcome> {
  // Installed first, so a Ctrl-C during detection or the build also stops cleanly.
  const interrupt = onInterrupt((sig) => process.stderr.write(`\nnh-gate: ${sig}: stopping after killing the running leg; finished legs are kept\n`));
  try {
    return await series(o, deps, interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}

// The result a series starts from, with the run directory (a resumed run's own, else a new one).
function startRun(o: SeriesSpec, deps: GateDeps, silicon: Silicon, arch: string, resumed: Resumed | null): SeriesRun {
  const { inputs } = o;
  const now = deps.now();
  const runDir = resumed ? resumed.runDir : createRunDir(o.resultsBase, o.gateName, now);
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: o.command, argv: o.argv,
    runDir, startedAt: now.toISOString(), finishedAt: null, status: 'running',
    recipe: { name: inputs.recipe.name, path: inputs.recipePath },
    golden: { name: inputs.golden.name, revision: inputs.golden.checkpoint.revision, path: inputs.goldenPath },
    gate: inputs.gate ? { name: inputs.gate.gate.name, path: inputs.gate.path, sha256: inputs.gate.sha256, hypothesis: inputs.gate.gate.hypothesis ?? null } : null,
    arch, silicon, build: null, plan: null, legs: [], quantities: {}, comparison: null,
    verdict: seriesVerdict('NOT_FINISHED', 'not finished'), notes: [], harness: thisHarness(),
  };
  const run: SeriesRun = { r, plots: { timelines: [], ab: o.abPlotTitle ? { title: o.abPlotTitle, legs: [] } : null }, reserve: { release() {} }, notes: [], resultsBase: o.resultsBase, deps };
  // Runs left "running" by an nh-gate that died (SIGKILL, OOM) are marked so, by name.
  for (const note of markDeadRuns(o.resultsBase, runDir)) {
    run.notes.push(note);
    r.notes.push(note);
    deps.progress(`nh-gate: ${note}`);
  }
  return run;
}

// The plan, checked against a resumed run, and the executor's preflight (a bad partition costs no build).
async function planRun(o: SeriesSpec, run: SeriesRun, arch: string, resumed: Resumed | null, timeoutS: number): Promise<SeriesPlan> {
  const plan = o.plan(arch);
  run.r.plan = plan.record;
  if (resumed) {
    checkResumable(resumed, plan.record.text, run.r.gate?.sha256 ?? null, o.inputs.recipe.name);
    run.notes.push(`resumed ${run.r.runDir}: ${resumed.kept.size} finished leg(s) kept, ${plan.legs.legs.length - resumed.kept.size} to run`);
  }
  const first = plan.legs.legs[0];
  const runner = run.deps.legRunner;
  if (runner?.preflight && first) {
    try {
      await runner.preflight({ runDir: run.r.runDir, arch, scopeLegs: plan.legs.legs.length }, { arm: first.arm, timeoutS });
    } catch (err) {
      if (!resumed) rmSync(run.r.runDir, { recursive: true, force: true });
      throw err;
    }
  }
  return plan;
}

// The GPU lock, with the stale holder it replaced (and that holder's leg group) noted.
async function takeLock(o: SeriesSpec, run: SeriesRun): Promise<HeldLock> {
  const lock = acquireLock(lockPath(), `nh-gate ${o.command} (${o.gateName})`);
  if (lock.replacedStale) run.notes.push(`replaced a stale GPU lock left by pid ${lock.replacedStale.pid} (${lock.replacedStale.command})`);
  const staleGroup = lock.replacedStale ? await settleStaleGroup(lock.replacedStale) : null;
  if (staleGroup) {
    run.notes.push(`STALE_LEG_GROUP: ${staleGroup.why}`);
    if (staleGroup.action !== 'gone') run.deps.progress(`nh-gate: ${staleGroup.why}`);
  }
  return lock;
}

async function series(o: SeriesSpec, deps: GateDeps, signal: AbortSignal): Promise<SeriesOutcome> {
  const originNs = monoNs();
  const silicon = await deps.detectSilicon();
  const arch = deps.legRunner?.kind === 'slurm' ? checkArchForNodes(o.archClaim) : checkArch(o.archClaim, silicon, o.inputs.recipe);
  if (!arch.ok && arch.usage) throw new NhGateError('USAGE', arch.message, 'pass --arch cpu, 90, 90a, 121a, 110 … (the compute capability of the target GPU)');
  if (arch.ok) requireCheckpoint(o.inputs.recipe, o.checkpoint);
  const resumed = o.resume ? loadResume(o.resume, o.command) : null;
  const run = startRun(o, deps, silicon, arch.arch, resumed);
  if (!arch.ok) {
    run.r.verdict = seriesVerdict('NO_SUCH_SILICON', arch.message);
    return finish(run, 'complete');
  }
  if (arch.note) run.notes.push(arch.note);
  const timeoutS = o.timeoutS ?? o.inputs.recipe.driver.timeoutS;
  const plan = await planRun(o, run, arch.arch, resumed, timeoutS);
  const lock = await takeLock(o, run);
  try {
    run.reserve = takeReserve(run.r.runDir);
    // Before the build and the first leg: free space against the logs the legs are expected to write.
    const short = checkSpace(run.r.runDir, plan.legs.legs.length, 0);
    if (short) throw new NhGateError('DISK_FULL', `${short}; nothing was run`, 'free space or pass --results-dir DIR on a larger filesystem (or set NH_GATE_EXPECT_LOG_BYTES if the legs log less)');
    const ready = await readyBinaries(plan, { inputs: o.inputs, arch: arch.arch, jobs: o.jobs, checkpoint: o.checkpoint, signal }, run);
    if (!ready.ok) {
      run.r.verdict = ready.verdict;
      return await finish(run, 'complete');
    }
    if (ready.note) run.notes.push(ready.note);
    const interrupted = await runLegs(o, plan, run, ready, { silicon, arch: arch.arch, originNs, timeoutS, lock, resumed, signal });
    return await finish(run, interrupted ? 'interrupted' : 'complete');
  } catch (err) {
    // A full or read-only results disk mid-run: the legs on disk are kept, the run is recorded as failed.
    if (!isDiskFault(err)) throw err;
    return await finish(run, diskFailure(run.r, err, run.reserve));
  } finally {
    // The executor's allocation (a Slurm lease) ends with the series, however it ends.
    await deps.legRunner?.release?.().catch((err: unknown) => deps.progress(`nh-gate: the Slurm allocation was not released: ${(err as Error).message}`));
    run.reserve.release();
    lock.release();
  }
}

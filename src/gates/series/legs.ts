import { NhGateError } from '../../errors.js';
import type { HeldLock } from '../../exec/lock.js';
import { saveRun } from '../../report/save.js';
import { checkSpace } from '../../results/space.js';
import type { Silicon } from '../../silicon/types.js';
import { reason } from '../../verdict/reasons.js';
import type { VerdictRecord } from '../../verdict/record.js';
import { runLeg, type LegContext, type LegOutcome } from '../leg/leg.js';
import type { ReadyBinaries } from './binaries.js';
import { apply, type SeriesRun } from './finish.js';
import type { Resumed } from './resume.js';
import type { JudgeSite, SeriesPlan, SeriesSpec } from './types.js';

// The legs of a series, in the plan's order, each through the executor seam (here or a Slurm job), each
// saved as it ends and judged with the legs before it; kept legs of a resumed run are not run again.

export interface LegsSite {
  silicon: Silicon;
  arch: string;
  originNs: bigint;
  timeoutS: number;
  lock: HeldLock;
  resumed: Resumed | null;
  signal: AbortSignal;
}

// The context one arm's legs run in.
function contextFor(o: SeriesSpec, plan: SeriesPlan, run: SeriesRun, ready: Extract<ReadyBinaries, { ok: true }>, s: LegsSite, arm: keyof typeof ready.byArm): LegContext {
  const site = ready.byArm[arm];
  if (!site) throw new Error(`the plan has a leg of arm ${arm} but no binary for it`);
  const { inputs } = o;
  return {
    deps: run.deps, recipe: inputs.recipe, profile: inputs.profile, golden: inputs.golden, goldenPath: ready.goldenPath, judgedGoldenPath: o.inputs.goldenPath, vars: site.vars,
    binaryPath: site.binaryPath, runDir: run.r.runDir, originNs: s.originNs, silicon: s.silicon, sampleGpu: s.silicon.kind === 'gpu' && s.arch !== 'cpu',
    voidIfThrottled: inputs.gate?.gate.voidIfThrottled ?? false, voidIfCpuContended: inputs.gate?.gate.voidIfCpuContended ?? false, ...(inputs.gate?.gate.witness ? { requireWitness: inputs.gate.gate.witness } : {}), deviceIndex: 0,
    timeoutS: s.timeoutS, signal: s.signal, onSpawn: (pid: number) => s.lock.recordLeg(pid),
    planLegs: plan.legs.legs.length, warmupLegs: plan.warmupLegs, blockLegs: plan.legs.blockLegs,
  };
}

// An interrupted run is VOID (PARTIAL) whatever its legs said, the judge's reasons kept after it.
export function interruptedVerdict(v: VerdictRecord, ran: number, planned: number, runDir: string): VerdictRecord {
  return { ...v, word: 'VOID', exitClass: 'void', reasons: [reason('PARTIAL', `interrupted after ${ran} of ${planned} leg(s); the finished legs are kept in ${runDir}`), ...v.reasons] };
}

// What the judge may read of the run.
function judgeSite(r: SeriesRun['r']): JudgeSite {
  return { runDir: r.runDir, arch: r.arch, silicon: r.silicon, recipe: r.recipe, plannedLegs: r.plan?.legs ?? 0 };
}

// Runs (or keeps) every planned leg; returns whether the run was interrupted.
export async function runLegs(o: SeriesSpec, plan: SeriesPlan, run: SeriesRun, ready: Extract<ReadyBinaries, { ok: true }>, s: LegsSite): Promise<boolean> {
  const { r, plots } = run;
  const legs = plan.legs.legs;
  const contexts = new Map<string, LegContext>();
  const ctx = (arm: keyof typeof ready.byArm): LegContext => contexts.get(arm) ?? contexts.set(arm, contextFor(o, plan, run, ready, s, arm)).get(arm)!;
  // On disk before the first leg: should nh-gate die mid-leg, a later run finds this one "running" and marks it.
  await saveRun(r, plots, run.deps.live);
  const outcomes: LegOutcome[] = [];
  let largestLog = 0;
  for (const [done, planned] of legs.entries()) {
    if (s.signal.aborted) break;
    const short = checkSpace(r.runDir, legs.length - done, largestLog);
    if (short) throw new NhGateError('DISK_FULL', `${short}; stopped before leg ${planned.index + 1}`, 'free space or pass --results-dir DIR on a larger filesystem');
    const out = s.resumed?.kept.get(planned.index) ?? await (o.runLeg ?? runLeg)(ctx(planned.arm), planned);
    largestLog = Math.max(largestLog, (out.log?.bytes ?? 0) + (out.log?.droppedBytes ?? 0));
    if (out.record.process.interrupted) {
      run.notes.push(`leg ${planned.index + 1} was interrupted and is not counted`);
      break;
    }
    outcomes.push(out);
    r.legs = outcomes.map((x) => x.record);
    if (out.timeline) plots.timelines.push(out.timeline);
    if (plots.ab) plots.ab.legs.push(out.abPoint);
    const j = o.judge(r.legs, false, judgeSite(r));
    apply(run, j);
    if (out.log?.fault) throw new NhGateError(out.log.fault, `leg ${planned.index + 1}'s log ${out.record.logFile} stopped after ${out.log.bytes} bytes: ${out.log.error}`, 'free space or pass --results-dir DIR on a larger filesystem');
    await saveRun(r, plots, run.deps.live);
    if (j.stop) break;
  }
  const interrupted = s.signal.aborted;
  apply(run, o.judge(r.legs, !interrupted, judgeSite(r)));
  if (interrupted) r.verdict = interruptedVerdict(r.verdict, outcomes.length, legs.length, r.runDir);
  return interrupted;
}

import { legBlock } from '../ab/blocks.js';
import { join } from 'node:path';
import type { Golden } from '../../config/golden.js';
import type { Recipe } from '../../config/recipe.js';
import type { Profile } from '../../profiles/types.js';
import type { Silicon } from '../../silicon/types.js';
import type { PlannedLeg } from '../../plan/plan.js';
import type { TemplateVars } from '../../build/template.js';
import { monoS } from '../../exec/clock.js';
import type { LegRecord } from '../../results/types.js';
import { abLegPoint, type TimelineInput, type AbLegPoint } from '../../report/plots.js';
import type { GateDeps } from '../deps.js';
import { EventsTail, interTokenS, readEngineEvents } from './events.js';
import { judgeLeg } from './judge.js';
import { legFileBase, legHeaderLine } from '../../results/legLog.js';
import { legFiles, observeLeg, type LegRequest, type LiveReading } from './observe.js';
import { LogTextReader, readDriverLog } from './logRead.js';
import { MAX_LINE_CHARS } from '../../exec/lines.js';
import { describeHazards, emptyHazards } from '../../profiles/hostile.js';
import { createDriverReader } from '../../profiles/reader.js';
import { NhGateError } from '../../errors.js';
import type { LogSinkResult } from '../../results/logSink.js';
import { refuseBusyCutShort } from './samplerCut.js';
import { applyCpuContention } from './cpuVoid.js';
import { basename, resolve } from 'node:path';

// What every leg of a series shares.
export interface LegContext {
  deps: GateDeps;
  recipe: Recipe;
  profile: Profile;
  golden: Golden;
  goldenPath: string;
  judgedGoldenPath?: string; // the golden.json judged against, where goldenPath is the driver's (engine-format) copy
  vars: TemplateVars;
  binaryPath: string;
  runDir: string;
  originNs: bigint;
  silicon: Silicon;
  // Sample the GPU (a GPU is present and the arch is a device arch).
  sampleGpu: boolean;
  deviceIndex: number;
  timeoutS: number;
  signal: AbortSignal;
  // A leg whose SM clock was held down in its window is VOID (THROTTLED) where the gate asks.
  voidIfThrottled?: boolean;
  // A CPU-contended leg is VOID (CPU_CONTENDED) where the gate asks, else only flagged.
  voidIfCpuContended?: boolean;
  // A pass must rest on ids the harness read (the gate's "witness": "harness"), else it is VOID (NOT_WITNESSED).
  requireWitness?: 'harness';
  // Told the leg's process group as soon as it is spawned (the GPU lock records it).
  onSpawn?: (pid: number) => void;
  // The plan's size and its warm-up legs: where a leg sits among the ABBA blocks (a Slurm allocation's scope).
  planLegs?: number;
  warmupLegs?: number;
  // Legs per block of the plan's design (a sweep: its arms), where it is not ABBA's 4.
  blockLegs?: number | undefined;
}

export interface LegOutcome {
  record: LegRecord;
  timeline: { file: string; input: TimelineInput } | null;
  abPoint: AbLegPoint;
  // How the leg log's write went: a full disk mid-leg is the series' to act on (absent for resumed legs).
  log?: LogSinkResult;
}

function legName(p: PlannedLeg): string {
  return legFileBase(p);
}

// The recipe's profile as a later reader finds it: a built-in name, or the profile file's absolute path.
function profileRef(ref: string, root: string): string {
  return ref.includes('/') || ref.endsWith('.json') ? resolve(root, ref) : ref;
}

// Whether this leg's environment turns on a flag that claims device execution.
export function deviceClaim(recipe: Recipe, env: Record<string, string>): boolean {
  return Object.values(recipe.flags).some((f) => f.deviceArm && env[f.env] === f.on);
}

// Runs one leg through the series' executor (here, or a Slurm job: src/gates/leg/legRunner.ts), then reads
// its events and judges it (pure). The log, events and samples are in the run directory when it returns.
export async function runLeg(ctx: LegContext, planned: PlannedLeg): Promise<LegOutcome> {
  const name = legName(planned);
  const claim = deviceClaim(ctx.recipe, planned.env);
  const eventsRel = legFiles({ name, driver: ctx.recipe.driver, sampleGpu: ctx.sampleGpu }).events;
  // The leg log's header (what the leg was), so `nh-gate analyze --log` re-judges it exactly as here.
  const logHeader = legHeaderLine({
    schemaVersion: 1, profile: profileRef(ctx.recipe.profile, ctx.vars.root ?? '.'), recipe: ctx.recipe.name, mode: planned.mode, golden: ctx.judgedGoldenPath ?? ctx.goldenPath,
    events: eventsRel ? basename(eventsRel) : null, deviceClaim: claim, index: planned.index, arm: planned.arm, label: planned.label,
    ...(ctx.requireWitness ? { requireWitness: ctx.requireWitness } : {}),
  });
  const req: LegRequest = {
    name, index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode, driver: ctx.recipe.driver, vars: ctx.vars,
    goldenPath: ctx.goldenPath, env: planned.env, unset: planned.unset ?? [], binaryPath: ctx.binaryPath, timeoutS: ctx.timeoutS, sampleGpu: ctx.sampleGpu, deviceIndex: ctx.deviceIndex, logHeader,
  };
  // Run here, the leg is read as its log is written (the same reading a re-read of the file makes); a leg run
  // elsewhere (a Slurm job) is read from the log that came back.
  const runner = ctx.deps.legRunner;
  const live: LiveReading | null = runner ? null : { log: new LogTextReader(ctx.profile), events: eventsRel ? new EventsTail(join(ctx.runDir, eventsRel)) : null };
  const out = runner
    ? await runner.run(req, { runDir: ctx.runDir, signal: ctx.signal, originNs: ctx.originNs, arch: ctx.vars.arch ?? 'cpu', ...legBlock(planned.index, ctx.warmupLegs ?? 0, ctx.planLegs ?? planned.index + 1, ctx.blockLegs), seriesLegs: ctx.planLegs ?? planned.index + 1 })
    : { observed: await observeLeg(req, ctx.runDir, ctx.deps, ctx.signal, ctx.onSpawn, live), silicon: null, originNs: null, slurm: null, fault: null };
  const { run, util, gpm, clocks, gpmStatus, nominalPeriodS, utilReadings, files, samplerBackend, samplerNote, foreignPids, contentionChecked, sampled } = out.observed;
  const silicon = out.silicon ?? ctx.silicon;
  // The report is the leg log's, by the very reading `analyze --log` makes: memory stays flat on any output
  // size, hostile lines are screened one way, and a leg re-read offline is this leg. A log the disk did not
  // take whole is read back from what it holds.
  const written = out.observed.log;
  const read = live && written.error === null && written.droppedBytes === 0 ? live.log.finish(written.bytes) : await readDriverLog(join(ctx.runDir, files.log), ctx.profile, { allowEmpty: true }).catch((err: unknown) => {
    // A job that never ran (or whose log never came back) left no log: an empty report, judged as such.
    if (err instanceof NhGateError && err.code === 'UNREADABLE_FILE') return { report: createDriverReader(ctx.profile).report(), hazards: emptyHazards() };
    throw err;
  });
  const eventsPath = files.events ? join(ctx.runDir, files.events) : null;

  const events = eventsPath ? (live?.events ? live.events.finish() : readEngineEvents(eventsPath)) : null;
  const report = read.report;
  const record = judgeLeg({
    index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode,
    flagEnv: Object.fromEntries(Object.values(ctx.recipe.flags).filter((f) => f.env in planned.env || planned.unset?.includes(f.env)).map((f) => [f.env, planned.env[f.env] ?? '<unset>'])),
    binarySha256: out.observed.binarySha256, run, originNs: out.originNs ?? ctx.originNs, report, events, golden: ctx.golden,
    deviceClaim: claim,
    busy: sampled ? { util, nominalPeriodS, ...(utilReadings ? { readings: utilReadings } : {}), backend: samplerBackend, note: samplerNote, foreignPids, contentionChecked, gpm, clocks, gpmStatus } : null,
    voidIfThrottled: ctx.voidIfThrottled ?? false,
    ...(ctx.requireWitness ? { requireWitness: ctx.requireWitness } : {}),
    silicon, fault: out.fault, files,
  });
  refuseBusyCutShort(record, out.observed.samplerEnd, util, monoS(out.originNs ?? ctx.originNs));
  const log = out.observed.log;
  const outputNotes = [describeHazards(read.hazards, MAX_LINE_CHARS), log.error ? `${log.fault ?? 'LOG_WRITE_FAILED'}: the leg log stopped after ${log.bytes} bytes (${log.droppedBytes} not written): ${log.error}` : null].filter((n): n is string => n !== null);
  if (outputNotes.length) record.outputNotes = outputNotes;
  // Ours is the leg's whole process tree (the driver, the engine it started, their children).
  const tree = out.observed.tree;
  record.contention = { ...record.contention, ourPids: tree.pids, treeCpuS: tree.cpuS, ...(tree.cpuNote ? { cpu: tree.cpuNote } : {}) };
  applyCpuContention(record, ctx.voidIfCpuContended ?? false);
  record.silicon = silicon;
  if (out.slurm) record.slurm = out.slurm;

  const legStartS = monoS(run.startNs);
  const timeline = sampled
    ? {
        file: `busy-${name}.svg`,
        input: {
          title: `${planned.label}: GPU utilization (${samplerBackend ?? 'none'})`,
          samples: util.map((u) => ({ tS: u.tS - legStartS, gpuPct: u.gpuPct })).filter((u) => u.tS >= -1),
          loadEndS: record.loadLine.tS !== null ? record.loadLine.tS - (record.process.startS) : null,
          decode: record.decodeWindow ? { startS: record.decodeWindow.startS - record.process.startS, endS: record.decodeWindow.endS - record.process.startS } : null,
          legEndS: record.process.endS - record.process.startS,
        },
      }
    : null;
  const modeEvents = events?.modes.get(planned.mode);
  const abPoint = abLegPoint(record, record.verdict === 'VOID' || !modeEvents ? [] : interTokenS(modeEvents));
  return { record, timeline, abPoint, log };
}

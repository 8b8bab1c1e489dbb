import { join } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import type { Golden } from '../config/golden.js';
import type { Recipe } from '../config/recipe.js';
import type { Profile } from '../profiles/types.js';
import type { Silicon } from '../silicon/types.js';
import type { PlannedLeg } from '../plan/plan.js';
import { createDriverReader } from '../profiles/reader.js';
import { expandArgv, type TemplateVars } from '../build/template.js';
import { sha256File } from '../io/hash.js';
import { monoS } from '../exec/clock.js';
import { readSamplesFile } from '../config/load.js';
import type { LegRecord } from '../results/types.js';
import type { TimelineInput, AbLegPoint } from '../report/plots.js';
import type { GateDeps } from './deps.js';
import { interTokenS, readEngineEvents } from './events.js';
import { judgeLeg } from './judge.js';
import { arrivalS, formatTimedLine } from '../profiles/timed.js';
import { legHeaderLine, legTrailerLine } from '../results/legLog.js';
import { basename, resolve } from 'node:path';
import type { GpmPoint } from '../quantity/activity.js';
import type { ClockPoint } from '../quantity/clocks.js';
import { MAX_LINE_CHARS } from '../exec/lines.js';
import { describeHazards, emptyHazards, screenLine } from '../profiles/hostile.js';
import { openLogSink, type LogSinkResult } from '../results/logSink.js';
import { refuseBusyCutShort } from './samplerCut.js';

// Lines kept in memory per leg for lastLines; the rest stream to the log and the reader.
const RETAIN_LINES = 200;

// What every leg of a series shares.
export interface LegContext {
  deps: GateDeps;
  recipe: Recipe;
  profile: Profile;
  golden: Golden;
  goldenPath: string;
  vars: TemplateVars;
  binaryPath: string;
  runDir: string;
  originNs: bigint;
  silicon: Silicon;
  // Sample the GPU (a GPU is present and the arch is a device arch).
  sampleGpu: boolean;
  // The gate's voidIfThrottled: a leg with a slowdown clock-event reason in its window is VOID (THROTTLED).
  voidIfThrottled?: boolean;
  deviceIndex: number;
  timeoutS: number;
  signal: AbortSignal;
  // Told the leg's process group as soon as it is spawned (the GPU lock records it).
  onSpawn?: (pid: number) => void;
}

export interface LegOutcome {
  record: LegRecord;
  timeline: { file: string; input: TimelineInput } | null;
  abPoint: AbLegPoint;
  // How the leg log's write went: a full disk mid-leg is the series' to act on (the leg is kept).
  log: LogSinkResult;
}

function legName(p: PlannedLeg): string {
  return `leg-${String(p.index + 1).padStart(2, '0')}-${p.arm === 'single' ? p.mode : p.arm}`;
}

// The recipe's profile as a later reader finds it: a built-in name, or the profile file's absolute path.
function profileRef(ref: string, root: string): string {
  return ref.includes('/') || ref.endsWith('.json') ? resolve(root, ref) : ref;
}

// Whether this leg's environment turns on a flag that claims device execution.
export function deviceClaim(recipe: Recipe, env: Record<string, string>): boolean {
  return Object.values(recipe.flags).some((f) => f.deviceArm && env[f.env] === f.on);
}

// Runs one leg: hash the binary, check for foreign GPU processes, sample, spawn with every line stamped,
// read the events, then judge (pure). Writes the leg's log (and events/samples stay where the driver put them).
export async function runLeg(ctx: LegContext, planned: PlannedLeg): Promise<LegOutcome> {
  const name = legName(planned);
  const logRel = join('legs', `${name}.log`);
  const eventsRel = ctx.recipe.driver.eventsArgv.length > 0 ? join('legs', `${name}.events.jsonl`) : null;
  const samplesRel = ctx.sampleGpu ? join('legs', `${name}.samples.jsonl`) : null;
  const eventsPath = eventsRel ? join(ctx.runDir, eventsRel) : null;
  mkdirSync(join(ctx.runDir, 'legs'), { recursive: true });
  if (eventsPath) rmSync(eventsPath, { force: true });
  const vars: TemplateVars = { ...ctx.vars, golden: ctx.goldenPath, runDir: ctx.runDir, ...(eventsPath ? { events: eventsPath } : {}) };
  const d = ctx.recipe.driver;
  const argv = [
    ...expandArgv(d.argv, vars, 'recipe.driver.argv'),
    ...expandArgv(d.goldenArgv, vars, 'recipe.driver.goldenArgv'),
    ...expandArgv(d.eventsArgv, vars, 'recipe.driver.eventsArgv'),
    ...expandArgv(d.modeArgv[planned.mode] ?? [], vars, `recipe.driver.modeArgv.${planned.mode}`),
  ];
  const binarySha256 = await sha256File(ctx.binaryPath);

  const foreign = new Set<number>();
  let contentionChecked = false;
  let sampler = null;
  let samplerNote: string | null = null;
  if (ctx.sampleGpu) {
    const before = await ctx.deps.computeProcesses(ctx.deviceIndex);
    if (before.status === 'measured') {
      contentionChecked = true;
      for (const p of before.processes) foreign.add(p.pid);
    } else samplerNote = `compute processes not listed: ${before.reason}`;
    try {
      sampler = await ctx.deps.openBusySampler({ deviceIndex: ctx.deviceIndex, samplesPath: join(ctx.runDir, samplesRel!) });
      if (sampler.backend === 'none') samplerNote = `NOT MEASURED: ${sampler.reason ?? 'no sampler backend'}`;
      else if (sampler.reason) samplerNote = `sampled by ${sampler.backend} (${sampler.reason})`;
    } catch (err) {
      samplerNote = `NOT MEASURED: ${(err as Error).message}`;
    }
  }

  const reader = createDriverReader(ctx.profile);
  const claim = deviceClaim(ctx.recipe, planned.env);
  const hazards = emptyHazards();
  // The leg log, streamed as lines arrive (memory stays flat however much the engine prints): a header (what
  // the leg was), every line in timed format ("<monotonic s>\t<line>"), a trailer (how the driver ended), so
  // `nh-gate analyze --log` re-judges it exactly as here. Reader and log share one arrival time per line.
  const sink = openLogSink(join(ctx.runDir, logRel));
  sink.write(legHeaderLine({
    schemaVersion: 1, profile: profileRef(ctx.recipe.profile, ctx.vars.root ?? '.'), recipe: ctx.recipe.name, mode: planned.mode, golden: ctx.goldenPath,
    events: eventsPath ? basename(eventsPath) : null, deviceClaim: claim, index: planned.index, arm: planned.arm, label: planned.label,
  }));
  ctx.deps.progress(`[nh-gate] leg ${planned.index + 1}: ${planned.label}`);
  const run = await ctx.deps.exec.run(
    { argv, env: planned.env, timeoutS: ctx.timeoutS, killGraceMs: 2000, retainLines: RETAIN_LINES },
    {
      signal: ctx.signal,
      ...(ctx.onSpawn ? { onSpawn: ctx.onSpawn } : {}),
      onLine: (l) => {
        const tS = arrivalS(l.tNs);
        sink.write(formatTimedLine(tS, l.text));
        if (screenLine(l, hazards)) reader.push(l.text, tS);
      },
    },
  );
  const stopped = sampler ? await sampler.stop() : null;

  let util: Array<{ tS: number; gpuPct: number; periodS?: number }> = [];
  const gpm: GpmPoint[] = [];
  const clocks: ClockPoint[] = [];
  let gpmStatus: string | null = null;
  let nominalPeriodS: number | null = null;
  if (stopped?.samplesPath) {
    const file = await readSamplesFile(stopped.samplesPath);
    nominalPeriodS = file.header?.nominalPeriodMs ? file.header.nominalPeriodMs / 1000 : null;
    const status = file.header?.sampler?.['gpmStatus'];
    gpmStatus = typeof status === 'string' ? status : null;
    for (const s of file.samples) {
      if (s.kind === 'util') util.push(s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct });
      if (s.kind === 'gpm') gpm.push(s);
      if (s.kind === 'clock') clocks.push({ tS: s.tS, smMHz: s.smMHz, eventReasons: s.eventReasons });
      if (s.kind === 'procs') {
        contentionChecked = true;
        for (const pid of s.pids) if (pid !== run.pid) foreign.add(pid);
      }
    }
    if (stopped.errors.length) samplerNote = `${samplerNote ? samplerNote + '; ' : ''}sampler errors: ${stopped.errors.join('; ')}`;
  }
  if (run.pid !== null) foreign.delete(run.pid);
  sink.write(legTrailerLine({ exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, interrupted: run.interrupted, spawnError: run.spawnError, foreignPids: [...foreign] }));
  const log = sink.close();

  const events = eventsPath ? readEngineEvents(eventsPath) : null;
  const report = reader.report();
  const record = judgeLeg({
    index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode,
    flagEnv: Object.fromEntries(Object.values(ctx.recipe.flags).filter((f) => f.env in planned.env).map((f) => [f.env, planned.env[f.env]!])),
    binarySha256, run, originNs: ctx.originNs, report, events, golden: ctx.golden,
    deviceClaim: claim,
    busy: ctx.sampleGpu ? { util, nominalPeriodS, backend: stopped?.backend ?? null, note: samplerNote, foreignPids: [...foreign], contentionChecked, gpm, clocks, gpmStatus } : null,
    voidIfThrottled: ctx.voidIfThrottled ?? false,
    silicon: ctx.silicon,
    files: { log: logRel, events: eventsRel, samples: stopped?.samplesPath ? samplesRel : null },
  });

  refuseBusyCutShort(record, stopped, util, monoS(ctx.originNs));
  const outputNotes = [describeHazards(hazards, MAX_LINE_CHARS), log.error ? `${log.fault ?? 'LOG_WRITE_FAILED'}: the leg log stopped after ${log.bytes} bytes (${log.droppedBytes} not written): ${log.error}` : null].filter((n): n is string => n !== null);
  if (outputNotes.length) record.outputNotes = outputNotes;

  const legStartS = monoS(run.startNs);
  const timeline = ctx.sampleGpu
    ? {
        file: `busy-${name}.svg`,
        input: {
          title: `${planned.label}: GPU utilization (${stopped?.backend ?? 'none'})`,
          samples: util.map((u) => ({ tS: u.tS - legStartS, gpuPct: u.gpuPct })).filter((u) => u.tS >= -1),
          loadEndS: record.loadLine.tS !== null ? record.loadLine.tS - (record.process.startS) : null,
          decode: record.decodeWindow ? { startS: record.decodeWindow.startS - record.process.startS, endS: record.decodeWindow.endS - record.process.startS } : null,
          legEndS: record.process.endS - record.process.startS,
        },
      }
    : null;
  const modeEvents = events?.modes.get(planned.mode);
  const pot = record.quantities.perOutputToken;
  const abPoint: AbLegPoint = {
    leg: `${planned.index + 1} ${planned.arm}`,
    arm: planned.arm === 'single' ? 'A' : planned.arm,
    tokenS: record.verdict === 'VOID' || !modeEvents ? [] : interTokenS(modeEvents),
    perTokenS: pot && pot.status === 'measured' ? pot.value : null,
  };
  return { record, timeline, abPoint, log };
}

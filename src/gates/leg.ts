import { join } from 'node:path';
import { mkdirSync, rmSync } from 'node:fs';
import type { Golden } from '../config/golden.js';
import type { Recipe } from '../config/recipe.js';
import type { Profile } from '../profiles/types.js';
import type { Silicon } from '../silicon/types.js';
import type { PlannedLeg } from '../plan/plan.js';
import { createDriverReader } from '../profiles/reader.js';
import { expandArgv, type TemplateVars } from '../build/template.js';
import { sha256File } from '../build/hash.js';
import { monoS } from '../exec/clock.js';
import { readSamplesFile } from '../config/load.js';
import { writeAtomic } from '../results/write.js';
import type { LegRecord } from '../results/types.js';
import type { TimelineInput, AbLegPoint } from '../report/plots.js';
import type { GateDeps } from './deps.js';
import { interTokenS, readEngineEvents } from './events.js';
import { judgeLeg } from './judge.js';
import { formatTimedLine } from '../profiles/timed.js';
import { cpuContention, trackTree, type TreeStop, type TreeTracker } from '../exec/ours.js';

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
  deviceIndex: number;
  timeoutS: number;
  signal: AbortSignal;
}

export interface LegOutcome {
  record: LegRecord;
  timeline: { file: string; input: TimelineInput } | null;
  abPoint: AbLegPoint;
}

function legName(p: PlannedLeg): string {
  return `leg-${String(p.index + 1).padStart(2, '0')}-${p.arm === 'single' ? p.mode : p.arm}`;
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
  ctx.deps.progress(`[nh-gate] leg ${planned.index + 1}: ${planned.label}`);
  let tree: TreeTracker | null = null;
  const run = await ctx.deps.exec.run(
    { argv, env: planned.env, unset: planned.unset ?? [], timeoutS: ctx.timeoutS, killGraceMs: 2000 },
    { signal: ctx.signal, onLine: (l) => reader.push(l.text, monoS(l.tNs)), onSpawn: (pid) => { tree = trackTree(pid); } },
  );
  const ours: TreeStop = (tree as TreeTracker | null)?.stop() ?? { pids: new Set(run.pid !== null ? [run.pid] : []), cpuS: null, host: null };
  const stopped = sampler ? await sampler.stop() : null;
  // The leg log in CORE's timed format ("<monotonic s>\t<line>"), so `nh-gate analyze --log` rebuilds the window.
  writeAtomic(join(ctx.runDir, logRel), run.lines.map((l) => formatTimedLine(monoS(l.tNs), l.text)).join('\n') + (run.lines.length ? '\n' : ''));

  let util: Array<{ tS: number; gpuPct: number; periodS?: number }> = [];
  let nominalPeriodS: number | null = null;
  if (stopped?.samplesPath) {
    const file = await readSamplesFile(stopped.samplesPath);
    nominalPeriodS = file.header?.nominalPeriodMs ? file.header.nominalPeriodMs / 1000 : null;
    for (const s of file.samples) {
      if (s.kind === 'util') util.push(s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct });
      if (s.kind === 'procs') {
        contentionChecked = true;
        for (const pid of s.pids) if (pid !== run.pid) foreign.add(pid);
      }
    }
    if (stopped.errors.length) samplerNote = `${samplerNote ? samplerNote + '; ' : ''}sampler errors: ${stopped.errors.join('; ')}`;
  }
  // Ours is the leg's whole process tree (the driver, the engine it started, their children).
  if (run.pid !== null) foreign.delete(run.pid);
  for (const pid of ours.pids) foreign.delete(pid);

  const events = eventsPath ? readEngineEvents(eventsPath) : null;
  const report = reader.report();
  const judged = judgeLeg({
    index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode,
    flagEnv: Object.fromEntries(Object.values(ctx.recipe.flags).filter((f) => f.env in planned.env || planned.unset?.includes(f.env)).map((f) => [f.env, planned.env[f.env] ?? '<unset>'])),
    binarySha256, run, originNs: ctx.originNs, report, events, golden: ctx.golden,
    deviceClaim: deviceClaim(ctx.recipe, planned.env),
    busy: ctx.sampleGpu ? { util, nominalPeriodS, backend: stopped?.backend ?? null, note: samplerNote, foreignPids: [...foreign], contentionChecked } : null,
    silicon: ctx.silicon,
    files: { log: logRel, events: eventsRel, samples: stopped?.samplesPath ? samplesRel : null },
  });
  const cpuNote = cpuContention(ours);
  const record: LegRecord = {
    ...judged,
    contention: { ...judged.contention, ourPids: [...ours.pids].sort((a, b) => a - b), treeCpuS: ours.cpuS, ...(cpuNote ? { cpu: cpuNote } : {}) },
  };

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
  return { record, timeline, abPoint };
}

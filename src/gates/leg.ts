import { join } from 'node:path';
import type { Golden } from '../config/golden.js';
import type { Recipe } from '../config/recipe.js';
import type { Profile } from '../profiles/types.js';
import type { Silicon } from '../silicon/types.js';
import type { PlannedLeg } from '../plan/plan.js';
import { createDriverReader } from '../profiles/reader.js';
import type { TemplateVars } from '../build/template.js';
import { monoS } from '../exec/clock.js';
import type { LegRecord } from '../results/types.js';
import type { TimelineInput, AbLegPoint } from '../report/plots.js';
import type { GateDeps } from './deps.js';
import { interTokenS, readEngineEvents } from './events.js';
import { judgeLeg } from './judge.js';
import { arrivalS } from '../profiles/timed.js';
import { legHeaderLine } from '../results/legLog.js';
import { observeLeg, type LegRequest } from './observe.js';
import { basename, resolve } from 'node:path';

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

// The recipe's profile as a later reader finds it: a built-in name, or the profile file's absolute path.
function profileRef(ref: string, root: string): string {
  return ref.includes('/') || ref.endsWith('.json') ? resolve(root, ref) : ref;
}

// Whether this leg's environment turns on a flag that claims device execution.
export function deviceClaim(recipe: Recipe, env: Record<string, string>): boolean {
  return Object.values(recipe.flags).some((f) => f.deviceArm && env[f.env] === f.on);
}

// Runs one leg through the series' executor (here, or a Slurm job: src/gates/legRunner.ts), then reads
// its events and judges it (pure). The log, events and samples are in the run directory when it returns.
export async function runLeg(ctx: LegContext, planned: PlannedLeg): Promise<LegOutcome> {
  const name = legName(planned);
  const claim = deviceClaim(ctx.recipe, planned.env);
  const eventsRel = ctx.recipe.driver.eventsArgv.length > 0 ? join('legs', `${name}.events.jsonl`) : null;
  // The leg log's header (what the leg was), so `nh-gate analyze --log` re-judges it exactly as here.
  const logHeader = legHeaderLine({
    schemaVersion: 1, profile: profileRef(ctx.recipe.profile, ctx.vars.root ?? '.'), recipe: ctx.recipe.name, mode: planned.mode, golden: ctx.goldenPath,
    events: eventsRel ? basename(eventsRel) : null, deviceClaim: claim, index: planned.index, arm: planned.arm, label: planned.label,
  });
  const req: LegRequest = {
    name, index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode, driver: ctx.recipe.driver, vars: ctx.vars,
    goldenPath: ctx.goldenPath, env: planned.env, binaryPath: ctx.binaryPath, timeoutS: ctx.timeoutS, sampleGpu: ctx.sampleGpu, deviceIndex: ctx.deviceIndex, logHeader,
  };
  const out = ctx.deps.legRunner
    ? await ctx.deps.legRunner.run(req, { runDir: ctx.runDir, signal: ctx.signal, originNs: ctx.originNs, arch: ctx.vars.arch ?? 'cpu' })
    : { observed: await observeLeg(req, ctx.runDir, ctx.deps, ctx.signal), silicon: null, originNs: null, slurm: null, fault: null };
  const { run, util, nominalPeriodS, files, samplerBackend, samplerNote, foreignPids, contentionChecked, sampled } = out.observed;
  const silicon = out.silicon ?? ctx.silicon;
  const reader = createDriverReader(ctx.profile);
  for (const l of run.lines) reader.push(l.text, arrivalS(l.tNs));
  const eventsPath = files.events ? join(ctx.runDir, files.events) : null;

  const events = eventsPath ? readEngineEvents(eventsPath) : null;
  const report = reader.report();
  const record = judgeLeg({
    index: planned.index, arm: planned.arm, label: planned.label, mode: planned.mode,
    flagEnv: Object.fromEntries(Object.values(ctx.recipe.flags).filter((f) => f.env in planned.env).map((f) => [f.env, planned.env[f.env]!])),
    binarySha256: out.observed.binarySha256, run, originNs: out.originNs ?? ctx.originNs, report, events, golden: ctx.golden,
    deviceClaim: claim,
    busy: sampled ? { util, nominalPeriodS, backend: samplerBackend, note: samplerNote, foreignPids, contentionChecked } : null,
    silicon, fault: out.fault, files,
  });
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
  const pot = record.quantities.perOutputToken;
  const abPoint: AbLegPoint = {
    leg: `${planned.index + 1} ${planned.arm}`,
    arm: planned.arm === 'single' ? 'A' : planned.arm,
    tokenS: record.verdict === 'VOID' || !modeEvents ? [] : interTokenS(modeEvents),
    perTokenS: pot && pot.status === 'measured' ? pot.value : null,
  };
  return { record, timeline, abPoint };
}

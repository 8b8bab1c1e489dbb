import type { LegArm } from '../../results/types.js';
import { join } from 'node:path';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import type { Recipe } from '../../config/recipe.js';
import type { Mode } from '../../plan/plan.js';
import { expandArgv, type TemplateVars } from '../../build/template.js';
import { sha256File } from '../../io/hash.js';
import { readSamplesFile } from '../../config/load.js';
import { arrivalS, formatTimedLine } from '../../profiles/timed.js';
import { legLineMetaLine, legTrailerLine } from '../../results/legLog.js';
import type { ProcessRun } from '../../exec/types.js';
import type { UtilPoint } from '../../quantity/busy.js';
import { readingsOfSource, type Readings } from '../../quantity/busySpans.js';
import type { GateDeps } from '../deps.js';
import type { SamplerBackend } from '../../sampler/types.js';
import type { GpmPoint } from '../../quantity/activity.js';
import type { ClockPoint } from '../../quantity/clocks.js';
import { openLogSink, type LogSinkResult } from '../../results/logSink.js';
import type { LogTextReader } from './logRead.js';
import type { EventsTail } from './events.js';
import { cpuContention, trackTree, type TreeStop, type TreeTracker } from '../../exec/ours.js';

// Lines kept in memory per leg for lastLines; every line streams to the log (which the judge reads back).
const RETAIN_LINES = 200;

// The part of a leg that must run on the host with the GPU: hash the binary, check for foreign GPU
// processes, sample, spawn the driver with every line stamped, write the timed log. The same code runs
// in the series (local executor) and in the Slurm job's leg runner (src/slurm/runner.ts), so a leg is
// observed one way whichever executor ran it; judging stays with the series (src/gates/leg/leg.ts).

// Everything the executing host needs to run one leg; plain data, so it can travel to a Slurm job as JSON.
export interface LegRequest {
  name: string;
  index: number;
  arm: LegArm;
  label: string;
  mode: Mode;
  driver: Pick<Recipe['driver'], 'argv' | 'goldenArgv' | 'eventsArgv' | 'modeArgv'>;
  // Template values (without {runDir} and {events}: those are where this host writes).
  vars: TemplateVars;
  goldenPath: string;
  env: Record<string, string>;
  // Variables the arm leaves unset (a flag read by presence): removed from the inherited environment.
  unset?: string[];
  binaryPath: string;
  timeoutS: number;
  sampleGpu: boolean;
  deviceIndex: number;
  // The leg log's first line (src/results/legLog.ts), written by the series; the host adds the trailer.
  logHeader: string;
}

// Paths of a leg's files, relative to the run directory.
export interface LegFiles {
  log: string;
  events: string | null;
  samples: string | null;
}

// What the executing host saw, before any judgement.
export interface LegObserved {
  run: ProcessRun;
  binarySha256: string | null;
  foreignPids: number[];
  contentionChecked: boolean;
  samplerBackend: string | null;
  samplerNote: string | null;
  util: UtilPoint[];
  gpm: GpmPoint[];
  clocks: ClockPoint[];
  gpmStatus: string | null;
  nominalPeriodS: number | null;
  // What the util readings are (the samples header's source): the driver's truncated whole percents or exact.
  utilReadings?: Readings;
  // How the sampler ended (a partial one failed mid-window), and how the leg log's write went.
  samplerEnd: { backend: SamplerBackend; partial: boolean; errors: string[] } | null;
  log: LogSinkResult;
  // The leg's whole process tree (driver, engine, children): its pids, its CPU seconds, other processes' CPU.
  tree: { pids: number[]; cpuS: number | null; cpuNote: string | null };
  // Whether the GPU was sampled (the executing host decides: it is the one with the GPU).
  sampled: boolean;
  files: LegFiles;
}

// The leg's file names: legs/<name>.log, .events.jsonl (when the recipe writes events), .samples.jsonl.
export function legFiles(req: Pick<LegRequest, 'name' | 'driver' | 'sampleGpu'>): LegFiles {
  return {
    log: join('legs', `${req.name}.log`),
    events: req.driver.eventsArgv.length > 0 ? join('legs', `${req.name}.events.jsonl`) : null,
    samples: req.sampleGpu ? join('legs', `${req.name}.samples.jsonl`) : null,
  };
}

// The driver argv of one leg writing its files under outDir (pure).
export function legArgv(req: LegRequest, outDir: string): string[] {
  const files = legFiles(req);
  const vars: TemplateVars = { ...req.vars, golden: req.goldenPath, runDir: outDir, ...(files.events ? { events: join(outDir, files.events) } : {}) };
  const d = req.driver;
  return [
    ...expandArgv(d.argv, vars, 'recipe.driver.argv'),
    ...expandArgv(d.goldenArgv, vars, 'recipe.driver.goldenArgv'),
    ...expandArgv(d.eventsArgv, vars, 'recipe.driver.eventsArgv'),
    ...expandArgv(d.modeArgv[req.mode] ?? [], vars, `recipe.driver.modeArgv.${req.mode}`),
  ];
}

// A binary's sha256 by its identity on disk: the same inode, size, mtime and ctime is the same bytes (a rebuild,
// in place or by rename, changes one of them), so an A/B's legs hash their binary once, not once per leg.
const hashed = new Map<string, { id: string; sha256: Promise<string | null> }>();
function binarySha256Of(path: string): Promise<string | null> {
  let id: string;
  try {
    const st = statSync(path, { bigint: true });
    id = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch {
    return sha256File(path); // absent: null, as the hash says
  }
  const known = hashed.get(path);
  if (known?.id === id) return known.sha256;
  const sha256 = sha256File(path);
  hashed.set(path, { id, sha256 });
  return sha256;
}

export type ObserveDeps = Pick<GateDeps, 'exec' | 'openBusySampler' | 'computeProcesses' | 'progress'>;

// What a leg run here reads while it runs, for its judge at the end: the leg log as it is written, and the
// events file as the driver appends to it (so neither is read again whole once the driver exits).
export interface LiveReading {
  log: LogTextReader;
  events: EventsTail | null;
}

// Runs one leg on this host, writing its log (and the driver its events, the sampler its samples) under outDir.
// `live`, when given, is fed every string written to the leg log, and polls the events file as lines arrive.
export async function observeLeg(req: LegRequest, outDir: string, deps: ObserveDeps, signal: AbortSignal, onSpawn?: (pid: number) => void, live: LiveReading | null = null): Promise<LegObserved> {
  const files = legFiles(req);
  mkdirSync(join(outDir, 'legs'), { recursive: true });
  if (files.events) rmSync(join(outDir, files.events), { force: true });
  const argv = legArgv(req, outDir);
  // Hashed while the driver runs (the leg does not wait on it), and once per unchanged binary.
  const binaryHash = binarySha256Of(req.binaryPath);

  const foreign = new Set<number>();
  let contentionChecked = false;
  let sampler = null;
  let samplerNote: string | null = null;
  if (req.sampleGpu) {
    const before = await deps.computeProcesses(req.deviceIndex);
    if (before.status === 'measured') {
      contentionChecked = true;
      for (const p of before.processes) foreign.add(p.pid);
    } else samplerNote = `compute processes not listed: ${before.reason}`;
    try {
      sampler = await deps.openBusySampler({ deviceIndex: req.deviceIndex, samplesPath: join(outDir, files.samples!) });
      if (sampler.backend === 'none') samplerNote = `NOT MEASURED: ${sampler.reason ?? 'no sampler backend'}`;
      else if (sampler.reason) samplerNote = `sampled by ${sampler.backend} (${sampler.reason})`;
    } catch (err) {
      samplerNote = `NOT MEASURED: ${(err as Error).message}`;
    }
  }

  // The leg log streams as lines arrive (memory stays flat however much the engine prints): the series'
  // header, every line in timed format ("<monotonic s>\t<line>", the arrival time the judge reads), a trailer.
  const disk = openLogSink(join(outDir, files.log));
  const sink = live ? { write: (line: string): void => { disk.write(line); live.log.chunk(`${line}\n`); }, close: () => disk.close() } : disk;
  let tree: TreeTracker | null = null;
  sink.write(req.logHeader);
  deps.progress(`[nh-gate] leg ${req.index + 1}: ${req.label}`);
  const run = await deps.exec.run(
    { argv, env: req.env, unset: req.unset ?? [], timeoutS: req.timeoutS, killGraceMs: 2000, retainLines: RETAIN_LINES },
    {
      signal,
      onSpawn: (pid) => {
        tree = trackTree(pid);
        onSpawn?.(pid);
      },
      onLine: (l) => {
        if (l.truncatedChars || l.crOverwrites) sink.write(legLineMetaLine({ ...(l.truncatedChars ? { truncatedChars: l.truncatedChars } : {}), ...(l.crOverwrites ? { crOverwrites: l.crOverwrites } : {}) }));
        sink.write(formatTimedLine(arrivalS(l.tNs), l.text));
        live?.events?.poll();
      },
    },
  );
  const binarySha256 = await binaryHash;
  const ours: TreeStop = (tree as TreeTracker | null)?.stop(run.endNs) ?? { pids: new Set(run.pid !== null ? [run.pid] : []), cpuS: null, host: null };
  const stopped = sampler ? await sampler.stop() : null;

  const util: UtilPoint[] = [];
  const gpm: GpmPoint[] = [];
  const clocks: ClockPoint[] = [];
  let gpmStatus: string | null = null;
  let nominalPeriodS: number | null = null;
  let utilReadings: Readings | undefined;
  if (stopped?.samplesPath) {
    const file = await readSamplesFile(stopped.samplesPath);
    nominalPeriodS = file.header?.nominalPeriodMs ? file.header.nominalPeriodMs / 1000 : null;
    utilReadings = readingsOfSource(file.header?.source);
    const status = file.header?.sampler?.['gpmStatus'];
    gpmStatus = typeof status === 'string' ? status : null;
    for (const s of file.samples) {
      if (s.kind === 'gpm') gpm.push(s);
      if (s.kind === 'clock') clocks.push({ tS: s.tS, smMHz: s.smMHz, eventReasons: s.eventReasons });
      if (s.kind === 'util') util.push(s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct });
      if (s.kind === 'procs') {
        contentionChecked = true;
        for (const pid of s.pids) if (pid !== run.pid) foreign.add(pid);
      }
    }
    if (stopped.errors.length) samplerNote = `${samplerNote ? samplerNote + '; ' : ''}sampler errors: ${stopped.errors.join('; ')}`;
  }
  if (run.pid !== null) foreign.delete(run.pid);
  for (const pid of ours.pids) foreign.delete(pid);
  // This process holds NVML open to sample; it is ours, not contention (the stand-in NVML lists it).
  foreign.delete(process.pid);
  // The trailer (how the driver ended), so `nh-gate analyze --log` re-judges the leg exactly as the series does.
  sink.write(legTrailerLine({ exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, interrupted: run.interrupted, spawnError: run.spawnError, foreignPids: [...foreign] }));
  const log = sink.close();
  return {
    run, binarySha256, foreignPids: [...foreign], contentionChecked, samplerBackend: stopped?.backend ?? null, samplerNote,
    util, gpm, clocks, gpmStatus, nominalPeriodS, ...(utilReadings ? { utilReadings } : {}), sampled: req.sampleGpu, files: { ...files, samples: stopped?.samplesPath ? files.samples : null },
    samplerEnd: stopped ? { backend: stopped.backend, partial: stopped.partial, errors: stopped.errors } : null, log,
    tree: { pids: [...ours.pids].sort((a, b) => a - b), cpuS: ours.cpuS, cpuNote: cpuContention(ours) },
  };
}

import { TOOL } from '../version.js';
import { join } from 'node:path';
import { monoNs, monoS } from '../exec/clock.js';
import { describeEnd, lastLines } from '../exec/types.js';
import { acquireLock, lockPath } from '../exec/lock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { readSamplesFile } from '../config/load.js';
import { busyFromSamples } from '../quantity/busy.js';
import { activityFromGpm } from '../quantity/activity.js';
import { clocksOverWindow, describeClocks } from '../quantity/clocks.js';
import { hostArchKey } from '../silicon/types.js';
import { refused } from '../quantity/make.js';
import { formatTimedLine } from '../profiles/timed.js';
import { createRunDir } from '../results/write.js';
import { openLogSink } from '../results/logSink.js';
import { saveRun, type PlotInputs } from '../report/save.js';
import { appendLedger } from '../results/ledger.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../results/types.js';
import { NhGateError } from '../errors.js';
import type { GateDeps } from './deps.js';
import type { SeriesOutcome } from './series.js';

export interface BusyOptions {
  argv: string[];
  command: string[];
  startMarker?: string | undefined;
  // The window closes at the first line matching this (after the start); never at exit when it is given.
  endMarker?: string | undefined;
  deviceIndex?: number | undefined;
  periodMs?: number | undefined;
  timeoutS?: number | undefined;
  resultsBase: string;
}

// nh-gate busy -- CMD: the decode-window sampler for any command. The window opens at the arrival of the
// first line matching --start-marker (at the command's start without one) and closes at the first line
// matching --end-marker after it (without one: at the last output line, so teardown after it is outside).
// A marker that never appears → WINDOW_UNKNOWN (never the whole run); no samples → NO_SAMPLES (never 0%).
export async function runBusy(o: BusyOptions, deps: GateDeps): Promise<SeriesOutcome> {
  if (o.command.length === 0) throw new NhGateError('USAGE', 'nh-gate busy needs a command after --', "e.g. nh-gate busy --start-marker 'engine loaded' -- ./driver --args");
  const marker = compileMarker('--start-marker', o.startMarker, 'engine loaded in');
  const endMarker = compileMarker('--end-marker', o.endMarker, 'TOKEN MATCH');
  const originNs = monoNs();
  const now = deps.now();
  const silicon = await deps.detectSilicon();
  const runDir = createRunDir(o.resultsBase, 'busy', now);
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: 'busy', argv: o.argv, runDir,
    startedAt: now.toISOString(), finishedAt: null, status: 'running', recipe: null, golden: null, gate: null,
    arch: hostArchKey(silicon), silicon, build: null, plan: null, legs: [],
    quantities: {}, comparison: null, verdict: { word: 'NOT MEASURED', exitClass: 'void', reasons: [] }, notes: [],
  };
  const plots: PlotInputs = { timelines: [], ab: null };
  const lock = acquireLock(lockPath(), 'nh-gate busy');
  const interrupt = onInterrupt();
  try {
    const samplesRel = 'samples.jsonl';
    const sampler = await deps.openBusySampler({ samplesPath: join(runDir, samplesRel), ...(o.deviceIndex !== undefined ? { deviceIndex: o.deviceIndex } : {}), ...(o.periodMs ? { periodMs: o.periodMs } : {}) });
    let markerS: number | null = null;
    let endS: number | null = null;
    let lastLineS: number | null = null;
    // The command's output streams to command.log as it arrives (memory stays flat on any output size).
    const sink = openLogSink(join(runDir, 'command.log'));
    const run = await deps.exec.run(
      { argv: o.command, retainLines: 200, ...(o.timeoutS ? { timeoutS: o.timeoutS } : {}) },
      {
        signal: interrupt.signal,
        onLine: (l) => {
          const t = monoS(l.tNs);
          sink.write(formatTimedLine(t, l.text));
          if (marker && markerS === null && marker.test(l.text)) markerS = t;
          else if (endMarker && endS === null && (!marker || markerS !== null) && endMarker.test(l.text)) endS = t;
          lastLineS = t;
        },
      },
    );
    const stopped = await sampler.stop();
    const log = sink.close();
    if (log.error) r.notes.push(`${log.fault ?? 'LOG_WRITE_FAILED'}: command.log stopped after ${log.bytes} bytes: ${log.error}`);
    const startS = marker ? markerS : monoS(run.startNs);
    const close = closeOf(endMarker, endS, lastLineS, monoS(run.endNs), o.endMarker);
    const window = startS !== null && close.endS !== null ? { startS, endS: close.endS } : null;
    const file = stopped.samplesPath ? await readSamplesFile(stopped.samplesPath) : null;
    const util = (file?.samples ?? []).flatMap((s) => (s.kind === 'util' ? [s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct }] : []));
    const nominal = file?.header?.nominalPeriodMs;
    const unknownWhy = startS === null ? `the start marker /${o.startMarker}/ never appeared` : close.endS === null ? `the end marker /${o.endMarker}/ never appeared${marker ? ' after the start marker' : ''} (the window is not closed at exit)` : null;
    const figs = unknownWhy !== null
      ? { timeWeighted: refused('GPU busy', 'WINDOW_UNKNOWN', `${unknownWhy}: the window is unknown, so no busy fraction is taken`), nonzeroShare: refused('GPU busy (nonzero-sample share)', 'WINDOW_UNKNOWN', unknownWhy) }
      : stopped.samplesPath
      ? busyFromSamples(util, window, { ...(nominal ? { nominalPeriodS: nominal / 1000 } : {}), silicon })
      : { timeWeighted: refused('GPU busy', 'NO_SAMPLES', `no sampler could run: ${sampler.reason ?? stopped.errors.join('; ') ?? 'no backend'} — NOT MEASURED, not 0%`), nonzeroShare: refused('GPU busy (nonzero-sample share)', 'NO_SAMPLES', 'no samples') };
    const base = monoS(originNs);
    const act = activityFromGpm((file?.samples ?? []).flatMap((s) => (s.kind === 'gpm' ? [s] : [])), window, { gpmStatus: gpmStatusOf(file?.header?.sampler), silicon });
    const clocks = clocksOverWindow((file?.samples ?? []).flatMap((s) => (s.kind === 'clock' ? [{ tS: s.tS, smMHz: s.smMHz, eventReasons: s.eventReasons }] : [])), window, silicon);
    r.quantities = { busy: figs.timeWeighted, busyShare: figs.nonzeroShare, smUtil: act.smUtil, smOccupancy: act.smOccupancy, dramBwUtil: act.dramBwUtil, smClockMin: clocks.smClockMin, smClockMedian: clocks.smClockMedian };
    r.notes.push(`driver busy = share of time a kernel was running; SM activity (GPM SM_UTIL) = share of SM-time with work: a one-block kernel reads high busy and ~0 SM activity`);
    r.notes.push(describeClocks(clocks));
    r.comparison = {
      process: { argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, end: describeEnd(run), lastLines: lastLines(run) },
      window: window ? { startS: window.startS - base, endS: window.endS - base, opensAt: marker ? `first line matching /${o.startMarker}/` : 'command start', closesAt: close.label } : null,
      clocks: { throttled: clocks.throttled, throttleReasons: clocks.throttleReasons, reasons: clocks.reasons, samples: clocks.samples },
      sampler: { backend: stopped.backend, reason: sampler.reason ?? null, count: stopped.count, errors: stopped.errors, samplesFile: stopped.samplesPath ? samplesRel : null },
    };
    if (marker && markerS === null) r.notes.push(`the start marker /${o.startMarker}/ never appeared: the window is unknown (busy NOT REPORTED, WINDOW_UNKNOWN)`);
    if (close.endS === null) r.notes.push(`the end marker /${o.endMarker}/ never appeared${marker ? ' after the start marker' : ''}: the window is unknown (busy NOT REPORTED, WINDOW_UNKNOWN) — it is not closed at exit`);
    else if (window) r.notes.push(`window closes at ${close.label}`);
    r.notes.push(`command: ${describeEnd(run)}`);
    if (stopped.samplesPath) {
      plots.timelines.push({ file: 'busy-timeline.svg', input: { title: `busy: ${o.command.join(' ').slice(0, 60)}`, samples: util.map((u) => ({ tS: u.tS - monoS(run.startNs), gpuPct: u.gpuPct })), loadEndS: null, decode: window ? { startS: window.startS - monoS(run.startNs), endS: window.endS - monoS(run.startNs) } : null, legEndS: monoS(run.endNs) - monoS(run.startNs) } });
    }
    const ok = figs.timeWeighted.status === 'measured';
    r.verdict = ok
      ? { word: 'MEASURED', exitClass: 'passed', reasons: [] }
      : { word: 'NOT MEASURED', exitClass: 'void', reasons: [figs.timeWeighted.status !== 'measured' ? `${figs.timeWeighted.reason}: ${figs.timeWeighted.message}` : ''] };
    r.status = interrupt.signal.aborted ? 'interrupted' : 'complete';
    r.finishedAt = deps.now().toISOString();
    await saveRun(r, plots);
    appendLedger(o.resultsBase, r);
    return { result: r, exitClass: r.verdict.exitClass };
  } finally {
    interrupt.dispose();
    lock.release();
  }
}

// A marker flag's pattern, or a USAGE error naming the flag.
function compileMarker(flag: string, pattern: string | undefined, example: string): RegExp | null {
  if (pattern === undefined) return null;
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new NhGateError('USAGE', `${flag} ${pattern} is not a valid regular expression (${(err as Error).message})`, `quote the pattern for your shell, e.g. ${flag} "${example}"`);
  }
}

// Where the window closes: the end-marker line (null when it never came), else the last output line, else exit.
function closeOf(endMarker: RegExp | null, endS: number | null, lastLineS: number | null, exitS: number, pattern: string | undefined): { endS: number | null; label: string } {
  if (endMarker) return { endS, label: `first line matching /${pattern}/` };
  if (lastLineS !== null) return { endS: lastLineS, label: 'the last output line (pass --end-marker REGEX to close it at a line of your choice)' };
  return { endS: exitS, label: 'command exit (the command printed no line)' };
}

// The sampler's GPM status from the samples header (null when the header does not say).
function gpmStatusOf(sampler: Record<string, unknown> | undefined): string | null {
  const v = sampler?.['gpmStatus'];
  return typeof v === 'string' ? v : null;
}

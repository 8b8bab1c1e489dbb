import type { SamplesFile } from '../../config/load.js';
import { monoS } from '../../exec/clock.js';
import { describeEnd, lastLines, type ProcessRun } from '../../exec/types.js';
import { busyFromSamples } from '../../quantity/busy.js';
import { readingsOfSource } from '../../quantity/busySpans.js';
import { activityFromGpm } from '../../quantity/activity.js';
import { clocksOverWindow, describeClocks } from '../../quantity/clocks.js';
import { refused } from '../../quantity/make.js';
import type { Quantity } from '../../quantity/types.js';
import type { Silicon } from '../../silicon/types.js';
import type { LogSinkResult } from '../../results/logSink.js';
import type { RunResult, VerdictRecord } from '../../results/types.js';
import type { PlotInputs } from '../../report/save.js';
import { formatReason, reason, type Reason } from '../../verdict/reasons.js';
import type { BusyComparison } from '../../results/comparison.js';
import { NhGateError } from '../../errors.js';

// The harness side of `nh-gate busy`, pure: marker arrival times → window → figures → the result's
// quantities, comparison, notes and verdict. The local executor and the Slurm one (the command ran on a
// node) hand it the same observation, so one judge decides busy wherever the command ran.

// When the marker lines arrived (monotonic s of the host that ran the command), as the scanner saw them.
export interface MarkerTimes {
  markerS: number | null;
  endS: number | null;
  lastLineS: number | null;
}

// What the host that ran the command observed: its process, marker times, the sampler's end and the log write.
export interface BusyObserved {
  run: ProcessRun;
  markers: MarkerTimes;
  sampler: { backend: string; reason: string | null; count: number; errors: string[]; samplesFile: string | null };
  log: LogSinkResult;
}

// The two marker patterns as the user gave them.
export interface BusyMarkers {
  startMarker?: string | undefined;
  endMarker?: string | undefined;
}

// A marker flag's pattern, or a USAGE error naming the flag.
export function compileMarker(flag: string, pattern: string | undefined, example: string): RegExp | null {
  if (pattern === undefined) return null;
  try {
    return new RegExp(pattern);
  } catch (err) {
    throw new NhGateError('USAGE', `${flag} ${pattern} is not a valid regular expression (${(err as Error).message})`, `quote the pattern for your shell, e.g. ${flag} "${example}"`);
  }
}

// Both markers compiled (USAGE on a bad pattern), checked before anything runs.
export function compileMarkers(m: BusyMarkers): { start: RegExp | null; end: RegExp | null } {
  return { start: compileMarker('--start-marker', m.startMarker, 'engine loaded in'), end: compileMarker('--end-marker', m.endMarker, 'TOKEN MATCH') };
}

// Marker times from lines as they arrive: the start at the first start-marker line, the end at the first
// end-marker line after it (after the command's start without a start marker), and the last line seen.
export function markerScanner(start: RegExp | null, end: RegExp | null): { feed(tS: number, text: string): void; times(): MarkerTimes } {
  const t: MarkerTimes = { markerS: null, endS: null, lastLineS: null };
  return {
    feed(tS, text) {
      if (start && t.markerS === null && start.test(text)) t.markerS = tS;
      else if (end && t.endS === null && (!start || t.markerS !== null) && end.test(text)) t.endS = tS;
      t.lastLineS = tS;
    },
    times: () => ({ ...t }),
  };
}

// Where the window closes: the end-marker line (null when it never came), else the last output line, else exit.
export function closeOf(endMarker: string | undefined, endS: number | null, lastLineS: number | null, exitS: number): { endS: number | null; label: string } {
  if (endMarker !== undefined) return { endS, label: `first line matching /${endMarker}/` };
  if (lastLineS !== null) return { endS: lastLineS, label: 'the last output line (pass --end-marker REGEX to close it at a line of your choice)' };
  return { endS: exitS, label: 'command exit (the command printed no line)' };
}

// The window from the marker times: null (WINDOW_UNKNOWN) when a marker that was asked for never came.
export function busyWindow(m: BusyMarkers, times: MarkerTimes, run: Pick<ProcessRun, 'startNs' | 'endNs'>): { window: { startS: number; endS: number } | null; close: { endS: number | null; label: string }; startS: number | null; unknownWhy: string | null } {
  const startS = m.startMarker !== undefined ? times.markerS : monoS(run.startNs);
  const close = closeOf(m.endMarker, times.endS, times.lastLineS, monoS(run.endNs));
  const window = startS !== null && close.endS !== null ? { startS, endS: close.endS } : null;
  const unknownWhy = startS === null ? `the start marker /${m.startMarker}/ never appeared` : close.endS === null ? `the end marker /${m.endMarker}/ never appeared${m.startMarker !== undefined ? ' after the start marker' : ''} (the window is not closed at exit)` : null;
  return { window, close, startS, unknownWhy };
}

// Everything the judge needs: the command, its markers, what was observed and where (silicon, clock origin).
export interface BusyJudgeInput extends BusyMarkers {
  command: string[];
  observed: BusyObserved;
  samples: SamplesFile | null;
  silicon: Silicon | null;
  // The run's origin on the observing host's monotonic clock (s): the window is reported relative to it.
  originS: number;
  // An executor's reason the command was not measured (a Slurm job cancelled …): NOT MEASURED by name.
  fault?: Reason | null | undefined;
}

export type BusyJudgement = Pick<RunResult, 'quantities' | 'comparison' | 'notes' | 'verdict'> & { plots: PlotInputs };

// The sampler's GPM status from the samples header (null when the header does not say).
function gpmStatusOf(sampler: Record<string, unknown> | undefined): string | null {
  const v = sampler?.['gpmStatus'];
  return typeof v === 'string' ? v : null;
}

// A command an executor lost: nothing was measured, and the reason says why.
export function judgeBusyFault(fault: Reason): BusyJudgement {
  const why = formatReason(fault);
  const quantities: Record<string, Quantity> = { busy: refused('GPU busy', 'NO_SAMPLES', `${why} — NOT MEASURED, not 0%`), busyShare: refused('GPU busy (nonzero-sample share)', 'NO_SAMPLES', why) };
  return { quantities, comparison: null, notes: [`the command was not measured: ${why}`], verdict: { word: 'NOT MEASURED', exitClass: 'void', reasons: [fault] }, plots: { timelines: [], ab: null } };
}

// markers → window → busy, SM activity and clocks over it → the verdict (MEASURED, else NOT MEASURED by name).
export function judgeBusy(i: BusyJudgeInput): BusyJudgement {
  if (i.fault) return judgeBusyFault(i.fault);
  const { run, log, sampler } = i.observed;
  const notes: string[] = [];
  if (log.error) notes.push(`${log.fault ?? 'LOG_WRITE_FAILED'}: command.log stopped after ${log.bytes} bytes: ${log.error}`);
  const { window, close, unknownWhy } = busyWindow(i, i.observed.markers, run);
  const file = i.samples;
  const util = (file?.samples ?? []).flatMap((s) => (s.kind === 'util' ? [s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct }] : []));
  const nominal = file?.header?.nominalPeriodMs;
  const silicon = i.silicon;
  const figs = unknownWhy !== null
    ? { timeWeighted: refused('GPU busy', 'WINDOW_UNKNOWN', `${unknownWhy}: the window is unknown, so no busy fraction is taken`), nonzeroShare: refused('GPU busy (nonzero-sample share)', 'WINDOW_UNKNOWN', unknownWhy) }
    : sampler.samplesFile
    ? busyFromSamples(util, window, { ...(nominal ? { nominalPeriodS: nominal / 1000 } : {}), readings: readingsOfSource(file?.header?.source), silicon })
    : { timeWeighted: refused('GPU busy', 'NO_SAMPLES', `no sampler could run: ${sampler.reason ?? sampler.errors.join('; ') ?? 'no backend'} — NOT MEASURED, not 0%`), nonzeroShare: refused('GPU busy (nonzero-sample share)', 'NO_SAMPLES', 'no samples') };
  const base = i.originS;
  const act = activityFromGpm((file?.samples ?? []).flatMap((s) => (s.kind === 'gpm' ? [s] : [])), window, { gpmStatus: gpmStatusOf(file?.header?.sampler), silicon });
  const clocks = clocksOverWindow((file?.samples ?? []).flatMap((s) => (s.kind === 'clock' ? [{ tS: s.tS, smMHz: s.smMHz, eventReasons: s.eventReasons }] : [])), window, silicon);
  const quantities: Record<string, Quantity> = { busy: figs.timeWeighted, busyShare: figs.nonzeroShare, smUtil: act.smUtil, smOccupancy: act.smOccupancy, dramBwUtil: act.dramBwUtil, smClockMin: clocks.smClockMin, smClockMedian: clocks.smClockMedian };
  notes.push(`driver busy = share of time a kernel was running; SM activity (GPM SM_UTIL) = share of SM-time with work: a one-block kernel reads high busy and ~0 SM activity`);
  notes.push(describeClocks(clocks));
  const startedS = monoS(run.startNs);
  const comparison: BusyComparison = {
    kind: 'busy',
    process: { argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, end: describeEnd(run), lastLines: lastLines(run) },
    window: window ? { startS: window.startS - base, endS: window.endS - base, opensAt: i.startMarker !== undefined ? `first line matching /${i.startMarker}/` : 'command start', closesAt: close.label } : null,
    clocks: { throttled: clocks.throttled, throttleReasons: clocks.throttleReasons, reasons: clocks.reasons, samples: clocks.samples },
    sampler: { backend: sampler.backend, reason: sampler.reason, count: sampler.count, errors: sampler.errors, samplesFile: sampler.samplesFile },
  };
  if (i.startMarker !== undefined && i.observed.markers.markerS === null) notes.push(`the start marker /${i.startMarker}/ never appeared: the window is unknown (busy NOT REPORTED, WINDOW_UNKNOWN)`);
  if (close.endS === null) notes.push(`the end marker /${i.endMarker}/ never appeared${i.startMarker !== undefined ? ' after the start marker' : ''}: the window is unknown (busy NOT REPORTED, WINDOW_UNKNOWN) — it is not closed at exit`);
  else if (window) notes.push(`window closes at ${close.label}`);
  notes.push(`command: ${describeEnd(run)}`);
  const plots: PlotInputs = { timelines: [], ab: null };
  if (sampler.samplesFile) {
    plots.timelines.push({ file: 'busy-timeline.svg', input: { title: `busy: ${i.command.join(' ').slice(0, 60)}`, samples: util.map((u) => ({ tS: u.tS - startedS, gpuPct: u.gpuPct })), loadEndS: null, decode: window ? { startS: window.startS - startedS, endS: window.endS - startedS } : null, legEndS: monoS(run.endNs) - startedS } });
  }
  const verdict: VerdictRecord = figs.timeWeighted.status === 'measured'
    ? { word: 'MEASURED', exitClass: 'passed', reasons: [] }
    : { word: 'NOT MEASURED', exitClass: 'void', reasons: [reason(figs.timeWeighted.reason, figs.timeWeighted.message)] };
  return { quantities, comparison, notes, verdict, plots };
}

import type { Golden } from '../../config/golden.js';
import type { DriverReport } from '../../profiles/types.js';
import type { ProcessRun } from '../../exec/types.js';
import { describeEnd, lastLines } from '../../exec/types.js';
import { monoS, spanS } from '../../exec/clock.js';
import { busyFromSamples, type UtilPoint } from '../../quantity/busy.js';
import type { Readings } from '../../quantity/busySpans.js';
import { activityFromGpm, type GpmPoint } from '../../quantity/activity.js';
import { clocksOverWindow, describeClocks, type ClockPoint } from '../../quantity/clocks.js';
import { refused } from '../../quantity/make.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import type { TokenWord } from '../../verdict/words.js';
import { decodeWindowOf } from './window.js';
import { engineTimes } from './clocks.js';
import type { Quantity } from '../../quantity/types.js';
import type { Silicon } from '../../silicon/types.js';
import type { LegRecord, TokenJudgement } from '../../results/types.js';
import type { EngineEvents } from './events.js';
import { crossCheck } from './crosscheck.js';
import { judgeTokens, witnessRequired } from './witness.js';
import { timingQuantities } from './timing.js';
import { engineFailure } from './failure.js';

// Everything observed about one leg, gathered by the leg runner; judged here without any effect.
export interface LegObservation extends Pick<LegRecord, 'index' | 'arm' | 'label' | 'mode' | 'flagEnv' | 'binarySha256'> {
  run: ProcessRun;
  originNs: bigint;
  report: DriverReport;
  events: EngineEvents | null;
  golden: Golden;
  // The leg claims device execution (a device-arm flag on): reference-tier lines void it.
  deviceClaim: boolean;
  busy: { util: UtilPoint[]; nominalPeriodS: number | null; readings?: Readings; backend: string | null; note: string | null; foreignPids: number[]; contentionChecked: boolean; gpm?: GpmPoint[]; clocks?: ClockPoint[]; gpmStatus?: string | null } | null;
  // The gate asks that a leg whose clocks were held down (power, thermal, hardware slowdown) be VOID (THROTTLED).
  voidIfThrottled?: boolean;
  silicon: Silicon | null;
  // The executor's own reason to void the leg (a Slurm job cancelled, lost, never started …), when it has one.
  fault?: Reason | null;
  // The gate requires that the harness saw the ids ("witness": "harness"): a pass that rests on counters is VOID.
  requireWitness?: 'harness';
  files: { log: string; events: string | null; samples: string | null };
}

function rel(o: LegObservation, tS: number | null): number | null {
  return tS === null ? null : tS - monoS(o.originNs);
}

// The driver ended on its own with one of its verdict codes (not killed, not crashed, not refused).
function ranToEnd(o: LegObservation): boolean {
  const r = o.run;
  return !o.fault && !r.spawnError && !r.timedOut && !r.interrupted && !r.signal && r.exitCode !== null && [0, 1, 3, 4].includes(r.exitCode);
}

// Harness tokens (by the witness rule), window, per-token on the clock that resolves it, busy, counters and
// the leg verdict.
export function judgeLeg(o: LegObservation): LegRecord {
  const { run, report } = o;
  const voidReasons: Reason[] = [];
  const modeEvents = o.events && !o.events.missing ? o.events.modes.get(o.mode) : undefined;
  const tokens: TokenJudgement = judgeTokens({ golden: o.golden, mode: o.mode, eventsFile: o.files.events, events: o.events, report, ranToEnd: ranToEnd(o) });
  const check = crossCheck(tokens, report, run.exitCode, 0);

  // The decode window on the harness clock, by the one rule analyze uses too.
  const dw = decodeWindowOf(report, o.mode);
  const loadTS = report.load?.tS ?? null;
  const window = dw.window ? { ...dw.window, source: dw.source } : null;
  const engineWindow = engineTimes(o.events?.loadEndNs ?? null, modeEvents);

  const refusing = report.verdicts.find((v) => v.kind === 'REFUSING');
  if (o.fault) voidReasons.push(o.fault);
  else if (run.spawnError) voidReasons.push(reason('CRASHED', `the driver could not start (${run.spawnError})`));
  else if (run.timedOut) voidReasons.push(reason('TIMEOUT', 'the driver ran past its limit; its process tree was killed'));
  else if (run.interrupted) voidReasons.push(reason('PARTIAL', 'interrupted (Ctrl-C) before the leg finished'));
  else if (run.signal) voidReasons.push(reason('CRASHED', `the driver was killed by ${run.signal}`));
  else if ((run.exitCode !== null && ![0, 1, 2, 3, 4].includes(run.exitCode)) || (run.exitCode === 2 && !refusing)) {
    voidReasons.push(reason('CRASHED', `the driver exited ${run.exitCode}, which is not one of its verdict codes`));
  }
  const failed = voidReasons.length === 0 ? engineFailure(run, report, o.events?.loadEndNs != null) : null;
  if (failed) voidReasons.push(failed);
  if (refusing) voidReasons.push(reason('ENGINE_REFUSED', refusing.detail));
  if (o.deviceClaim && report.referenceTier.count > 0) voidReasons.push(reason('REFERENCE_TIER', `${report.referenceTier.count} reference-tier line(s) on a device-arm claim — not a device result`));
  if (o.busy && o.busy.foreignPids.length > 0) voidReasons.push(reason('CONTENDED', `compute process(es) not ours on the GPU: pid ${o.busy.foreignPids.join(', ')}`));
  if (tokens.word === 'VOID') voidReasons.push(...tokens.reasons);
  const unwitnessed = witnessRequired(tokens, o.requireWitness);
  if (unwitnessed) voidReasons.push(unwitnessed);
  const clockFigs = o.busy?.clocks ? clocksOverWindow(o.busy.clocks, window ? { startS: window.startS, endS: window.endS } : null, o.silicon) : null;
  if (clockFigs?.throttled && o.voidIfThrottled) voidReasons.push(reason('THROTTLED', `clock-event reason(s) ${clockFigs.throttleReasons.join(', ')} during the decode window — the gate voids a throttled leg`));

  let verdict: TokenWord = tokens.word;
  if (voidReasons.length > 0) verdict = 'VOID';
  else if (!check.agree) verdict = 'DIVERGENCE';

  const quantities: Record<string, Quantity> = timingQuantities({
    mode: o.mode, dw, tokens, report, events: o.events, firstVoid: voidReasons.find((v) => v.code !== 'CONTENDED') ?? null, silicon: o.silicon,
  });

  let samplerNote = o.busy?.note ?? null;
  if (o.busy) {
    const figs = busyFromSamples(o.busy.util, window ? { startS: window.startS, endS: window.endS } : null, { ...(o.busy.nominalPeriodS ? { nominalPeriodS: o.busy.nominalPeriodS } : {}), readings: o.busy.readings ?? 'exact', silicon: o.silicon });
    quantities.busy = o.busy.foreignPids.length > 0 && figs.timeWeighted.status === 'measured'
      ? refused(figs.timeWeighted.name, 'CONTENDED', `a compute process that is not ours (pid ${o.busy.foreignPids.join(', ')}) used the GPU — the busy figure is not this leg's`)
      : figs.timeWeighted;
    quantities.busyShare = figs.nonzeroShare;
    // Beside driver busy (a kernel was running), what the SMs did: GPM over the same window.
    const act = activityFromGpm(o.busy.gpm ?? [], window ? { startS: window.startS, endS: window.endS } : null, { gpmStatus: o.busy.gpmStatus ?? null, silicon: o.silicon });
    quantities.smUtil = act.smUtil;
    quantities.smOccupancy = act.smOccupancy;
    quantities.dramBwUtil = act.dramBwUtil;
    if (clockFigs) {
      quantities.smClockMin = clockFigs.smClockMin;
      quantities.smClockMedian = clockFigs.smClockMedian;
    }
  } else samplerNote = samplerNote ?? 'no GPU on this host — busy not sampled';

  const counters: Record<string, number> = {};
  const records = o.events && o.events.counters.length > 0 ? o.events.counters.map((c) => c.fields) : report.counters.records.map((r) => r.fields);
  for (const f of records) for (const [k, v] of Object.entries(f)) if (typeof v === 'number') counters[k] = (counters[k] ?? 0) + v;

  return {
    index: o.index, arm: o.arm, label: o.label, mode: o.mode, flagEnv: o.flagEnv, binarySha256: o.binarySha256,
    process: {
      argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, interrupted: run.interrupted,
      spawnError: run.spawnError, end: describeEnd(run), startS: rel(o, monoS(run.startNs))!, endS: rel(o, monoS(run.endNs))!, lastLines: lastLines(run),
      ...(run.contained ? { contained: run.contained } : {}),
    },
    logFile: o.files.log, eventsFile: o.files.events, samplesFile: o.files.samples,
    samplerBackend: o.busy?.backend ?? null, samplerNote,
    loadLine: { seen: report.load !== null, tS: rel(o, loadTS), loadS: report.load?.loadS ?? null, source: report.load ? `line ${report.load.line}` : null },
    decodeWindow: window ? { startS: rel(o, window.startS)!, endS: rel(o, window.endS)!, source: window.source } : null,
    // Differences of nanosecond integers, so the window does not lose digits to the host's uptime.
    engineWindow: engineWindow ? { startS: spanS(o.originNs, engineWindow.startNs), endS: spanS(o.originNs, engineWindow.endNs) } : null,
    tokens, witness: tokens.witness, crossCheck: check, referenceTierLines: report.referenceTier.count,
    counters, counterRecords: records.length,
    contention: { foreignPids: o.busy?.foreignPids ?? [], checked: o.busy?.contentionChecked ?? false, note: o.busy ? (o.busy.contentionChecked ? 'compute processes checked before and during the leg' : 'compute processes could not be listed') : 'no GPU' },
    quantities, verdict, voidReasons,
    ...(clockFigs ? { clocks: { throttled: clockFigs.throttled, throttleReasons: clockFigs.throttleReasons, reasons: clockFigs.reasons, samples: clockFigs.samples, line: describeClocks(clockFigs) } } : {}),
  };
}

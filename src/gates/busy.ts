import { TOOL } from '../version.js';
import { join } from 'node:path';
import { monoNs, monoS } from '../exec/clock.js';
import { describeEnd, lastLines } from '../exec/types.js';
import { acquireLock, lockPath } from '../exec/lock.js';
import { onInterrupt } from '../exec/interrupt.js';
import { readSamplesFile } from '../config/load.js';
import { busyFromSamples } from '../quantity/busy.js';
import { refused } from '../quantity/make.js';
import { formatTimedLine } from '../profiles/timed.js';
import { createRunDir } from '../results/write.js';
import { writeAtomic } from '../io/atomic.js';
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
  deviceIndex?: number | undefined;
  periodMs?: number | undefined;
  timeoutS?: number | undefined;
  resultsBase: string;
}

// nh-gate busy -- CMD: the decode-window sampler for any command. The window opens at the arrival of the
// first line matching --start-marker (at the command's start without one) and closes at its exit.
// No marker line → WINDOW_UNKNOWN (never the whole run); no samples → NO_SAMPLES (never 0%).
export async function runBusy(o: BusyOptions, deps: GateDeps): Promise<SeriesOutcome> {
  if (o.command.length === 0) throw new NhGateError('USAGE', 'nh-gate busy needs a command after --', "e.g. nh-gate busy --start-marker 'engine loaded' -- ./driver --args");
  let marker: RegExp | null = null;
  if (o.startMarker !== undefined) {
    try {
      marker = new RegExp(o.startMarker);
    } catch (err) {
      throw new NhGateError('USAGE', `--start-marker ${o.startMarker} is not a valid regular expression (${(err as Error).message})`, 'quote the pattern for your shell, e.g. --start-marker "engine loaded in"');
    }
  }
  const originNs = monoNs();
  const now = deps.now();
  const silicon = await deps.detectSilicon();
  const runDir = createRunDir(o.resultsBase, 'busy', now);
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: TOOL, command: 'busy', argv: o.argv, runDir,
    startedAt: now.toISOString(), finishedAt: null, status: 'running', recipe: null, golden: null, gate: null,
    arch: silicon.kind === 'gpu' ? (silicon.archTarget ?? 'gpu') : 'cpu', silicon, build: null, plan: null, legs: [],
    quantities: {}, comparison: null, verdict: { word: 'NOT MEASURED', exitClass: 'void', reasons: [] }, notes: [],
  };
  const plots: PlotInputs = { timelines: [], ab: null };
  const lock = acquireLock(lockPath(), 'nh-gate busy');
  const interrupt = onInterrupt();
  try {
    const samplesRel = 'samples.jsonl';
    const sampler = await deps.openBusySampler({ samplesPath: join(runDir, samplesRel), ...(o.deviceIndex !== undefined ? { deviceIndex: o.deviceIndex } : {}), ...(o.periodMs ? { periodMs: o.periodMs } : {}) });
    let markerS: number | null = null;
    const run = await deps.exec.run(
      { argv: o.command, ...(o.timeoutS ? { timeoutS: o.timeoutS } : {}) },
      { signal: interrupt.signal, onLine: (l) => { if (marker && markerS === null && marker.test(l.text)) markerS = monoS(l.tNs); } },
    );
    const stopped = await sampler.stop();
    writeAtomic(join(runDir, 'command.log'), run.lines.map((l) => formatTimedLine(monoS(l.tNs), l.text)).join('\n') + '\n');
    const startS = marker ? markerS : monoS(run.startNs);
    const window = startS !== null ? { startS, endS: monoS(run.endNs) } : null;
    const file = stopped.samplesPath ? await readSamplesFile(stopped.samplesPath) : null;
    const util = (file?.samples ?? []).flatMap((s) => (s.kind === 'util' ? [s.periodS !== undefined ? { tS: s.tS, gpuPct: s.gpuPct, periodS: s.periodS } : { tS: s.tS, gpuPct: s.gpuPct }] : []));
    const nominal = file?.header?.nominalPeriodMs;
    const figs = stopped.samplesPath
      ? busyFromSamples(util, window, { ...(nominal ? { nominalPeriodS: nominal / 1000 } : {}), silicon })
      : { timeWeighted: refused('GPU busy', 'NO_SAMPLES', `no sampler could run: ${sampler.reason ?? stopped.errors.join('; ') ?? 'no backend'} — NOT MEASURED, not 0%`), nonzeroShare: refused('GPU busy (nonzero-sample share)', 'NO_SAMPLES', 'no samples') };
    const base = monoS(originNs);
    r.quantities = { busy: figs.timeWeighted, busyShare: figs.nonzeroShare };
    r.comparison = {
      process: { argv: run.argv, exitCode: run.exitCode, signal: run.signal, timedOut: run.timedOut, end: describeEnd(run), lastLines: lastLines(run) },
      window: window ? { startS: window.startS - base, endS: window.endS - base, opensAt: marker ? `first line matching /${o.startMarker}/` : 'command start' } : null,
      sampler: { backend: stopped.backend, reason: sampler.reason ?? null, count: stopped.count, errors: stopped.errors, samplesFile: stopped.samplesPath ? samplesRel : null },
    };
    if (marker && markerS === null) r.notes.push(`the start marker /${o.startMarker}/ never appeared: the window is unknown (busy NOT REPORTED, WINDOW_UNKNOWN)`);
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

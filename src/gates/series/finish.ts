import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeAtomic } from '../../io/atomic.js';
import { saveRun, type PlotInputs } from '../../report/save.js';
import { renderSummaryMd } from '../../report/summary.js';
import { appendLedger } from '../../results/ledger.js';
import type { Reserve } from '../../results/space.js';
import type { RunResult } from '../../results/types.js';
import { reason, type ReasonCode } from '../../verdict/reasons.js';
import type { VerdictRecord } from '../../verdict/record.js';
import type { ExitClass, VerdictWord } from '../../verdict/words.js';
import type { GateDeps } from '../deps.js';
import { diskFailure, isDiskFault } from './diskFailure.js';
import type { Judgement, SeriesOutcome } from './types.js';

// A series in progress: the result being written, its plots, the disk reserve, and the series' own notes
// (the judge's are set beside them on every call, never filtered by text).
export interface SeriesRun {
  r: RunResult;
  plots: PlotInputs;
  reserve: Reserve;
  notes: string[];
  resultsBase: string;
  deps: GateDeps;
}

// A verdict of one reason: the series' own faults (no such silicon, a failed build, a missing binary).
export function seriesVerdict(code: ReasonCode, message: string, word: VerdictWord = 'VOID', exitClass: ExitClass = 'void'): VerdictRecord {
  return { word, exitClass, reasons: [reason(code, message)] };
}

// The judge's value becomes the result's, as it is.
export function apply(run: SeriesRun, j: Judgement): void {
  run.r.quantities = j.quantities;
  run.r.comparison = j.comparison;
  run.r.verdict = j.verdict;
  run.r.notes = [...run.notes, ...j.notes];
}

// Saves the run, appends its ledger line and the step summary; a full results disk records the run as failed.
export async function finish(run: SeriesRun, status: RunResult['status']): Promise<SeriesOutcome> {
  const { r, deps } = run;
  r.status = status;
  r.finishedAt = deps.now().toISOString();
  if (status !== 'failed') run.reserve.release();
  try {
    // A failed run writes its record first and no plots: the space left is for result.json.
    await saveRun(r, status === 'failed' ? { timelines: [], ab: null } : run.plots, deps.live);
  } catch (err) {
    if (!isDiskFault(err)) throw err;
    if (status !== 'failed') return finish(run, diskFailure(r, err, run.reserve));
    writeAtomic(join(r.runDir, 'result.json'), JSON.stringify({ schemaVersion: r.schemaVersion, status: r.status, runDir: r.runDir, verdict: r.verdict, legs: r.legs.length }) + '\n');
  }
  try {
    appendLedger(run.resultsBase, r);
  } catch (err) {
    if (!isDiskFault(err)) throw err;
    deps.progress(`nh-gate: ${err.code}: the ledger line was not appended (${err.message}); ${r.runDir} holds the run`);
  }
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) appendFileSync(stepSummary, renderSummaryMd(r, []) + '\n');
  return { result: r, exitClass: r.verdict.exitClass };
}

import type { Hypothesis, SequentialConfig } from '../../config/gate.js';
import type { LegRecord } from '../../results/types.js';
import type { LedgerRead } from '../../results/ledgerRead.js';
import { confidenceSequence } from '../../stats/sequential.js';
import { seededRandom } from '../../stats/bootstrap.js';
import { stdev } from '../../stats/summary.js';
import { blockLogRatios, logCriterion } from './blocks.js';
import { mixtureParams } from './sequentialJudge.js';

// A/A calibration (ab --aa): the same arm on both sides, the gate's whole leg budget, judged for how often
// the gate's own sequential test would claim a difference that cannot exist. The figure goes into the
// ledger under this silicon key, where a gate with sequential.requireCalibrationDays looks for it.

export const FALSE_ALARM_FIGURE = 'aaFalseAlarmRate';
export const AA_RESAMPLES = 2000;
// Fewer blocks than this give an sd with too few degrees of freedom to stand for the silicon's noise.
export const AA_MIN_BLOCKS = 4;

export interface AaRecord {
  blocks: number;
  logRatios: number[];
  observedSdLogRatio: number | null;
  // A nonzero mean in an A/A is a position or order effect, not noise: shown, and tested by the run's own CS.
  observedMeanLogRatio: number | null;
  registeredSigma: number;
  // Whether this run's own confidence sequence ever excluded 0 (an A/A false alarm, 0 or 1).
  falseAlarmThisRun: boolean;
  // The rate over budget-long block sequences resampled (with replacement) from this run's blocks after
  // centring them on 0 (the A/A truth): this silicon's noise, its shape and tails, with no effect in it.
  falseAlarmRate: number | null;
  resamples: number;
  seed: number;
  alpha: number;
  holds: boolean;
  text: string;
}

function excludesZero(xs: number[], p: ReturnType<typeof mixtureParams>): boolean {
  return confidenceSequence(xs, p).some((iv) => iv.lo > 0 || iv.hi < 0);
}

// Pure: the A/A figures from the legs of an A/A run.
export function judgeAa(legs: readonly LegRecord[], h: Hypothesis, seq: SequentialConfig, seed: number, budgetBlocks: number): AaRecord {
  const key = h.metric === 'perOutputToken' ? 'perOutputToken' : 'busy';
  const { criterion } = logCriterion(h, { A: 'on', B: 'on' });
  const p = mixtureParams(seq, criterion.bound);
  const xs = blockLogRatios(legs, key, 'B').flatMap((b) => (b.logRatio === null ? [] : [b.logRatio]));
  const sd = xs.length >= 2 ? stdev(xs) : null;
  let rate: number | null = null;
  if (xs.length >= AA_MIN_BLOCKS) {
    const rand = seededRandom(seed);
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const centred = xs.map((x) => x - m);
    let alarms = 0;
    for (let r = 0; r < AA_RESAMPLES; r++) {
      const draw = Array.from({ length: budgetBlocks }, () => centred[Math.floor(rand() * centred.length)]!);
      if (excludesZero(draw, p)) alarms += 1;
    }
    rate = alarms / AA_RESAMPLES;
  }
  const falseAlarmThisRun = excludesZero(xs, p);
  const holds = rate !== null && rate <= p.alpha && !falseAlarmThisRun && sd !== null && sd <= p.sigma;
  const text = rate === null
    ? `A/A: ${xs.length} usable block(s); a calibration needs at least ${AA_MIN_BLOCKS} (${4 * AA_MIN_BLOCKS} legs: pass --budget ${4 * AA_MIN_BLOCKS} or more)`
    : `A/A: ${xs.length} blocks, block log-ratio mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4)}, sd ${sd!.toFixed(4)} against the registered σ ${p.sigma}; this run ${falseAlarmThisRun ? 'DID' : 'did not'} claim a difference; false-alarm rate ${(100 * rate).toFixed(1)}% over ${AA_RESAMPLES} centred resampled sequences of ${budgetBlocks} blocks (seed ${seed}) against α ${p.alpha}`
      + (holds ? ': the registered noise bound holds on this silicon' : ': the registered noise bound does NOT hold on this silicon');
  return { blocks: xs.length, logRatios: xs, observedSdLogRatio: sd, observedMeanLogRatio: xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null, registeredSigma: p.sigma, falseAlarmThisRun, falseAlarmRate: rate, resamples: AA_RESAMPLES, seed, alpha: p.alpha, holds, text };
}

export type CalibrationCheck = { ok: true; at: string; rate: number; line: number } | { ok: false; message: string };

// The newest passing A/A calibration of this gate on this silicon, if younger than maxAgeDays.
export function findCalibration(ledger: LedgerRead, gate: string, siliconKey: string, now: Date, maxAgeDays: number): CalibrationCheck {
  const mine = ledger.entries.filter((e) => e.gate === gate && e.siliconKey === siliconKey && e.figures[FALSE_ALARM_FIGURE] !== undefined);
  const passing = mine.filter((e) => e.verdict === 'MEASURED');
  const newest = passing.at(-1);
  const ageDays = (at: string): number => (now.getTime() - Date.parse(at)) / 86_400_000;
  if (newest && ageDays(newest.at) <= maxAgeDays) return { ok: true, at: newest.at, rate: newest.figures[FALSE_ALARM_FIGURE]!.value, line: newest.line };
  const why = newest
    ? `the newest passing one (${newest.at}, line ${newest.line}) is ${ageDays(newest.at).toFixed(1)} days old`
    : mine.length ? `${mine.length} calibration(s) found there, none passing` : 'none was found there';
  return { ok: false, message: `gate '${gate}' requires an A/A calibration on silicon ${siliconKey} younger than ${maxAgeDays} days in ${ledger.path}; ${why}` };
}

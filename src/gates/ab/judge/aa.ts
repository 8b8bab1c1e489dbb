import type { LegRecord } from '../../../results/types.js';
import type { AaRecord } from '../../../results/comparison.js';
import { seededRandom } from '../../../stats/bootstrap.js';
import { confidenceSequence, type MixtureParams } from '../../../stats/sequential.js';
import { mean, stdev } from '../../../stats/summary.js';
import { BLOCK_LEGS, blockObservations } from '../blocks.js';
import type { ClaimCriterion } from '../claim.js';

// A/A calibration (ab --aa): the same arm on both sides for the gate's whole leg budget, judged per metric
// for how often the gate's own sequential test would claim a difference that cannot exist. The figure goes
// into the ledger under this silicon key, where a gate with sequential.requireCalibrationDays looks for it.

export const FALSE_ALARM_FIGURE = 'aaFalseAlarmRate';
export const AA_RESAMPLES = 2000;
// Fewer blocks than this give an sd with too few degrees of freedom to stand for the silicon's noise.
export const AA_MIN_BLOCKS = 4;

// Whether a confidence sequence over xs ever excluded no effect (0 in the observations' units).
function excludesZero(xs: readonly number[], p: MixtureParams): boolean {
  return confidenceSequence(xs, p).some((iv) => iv.lo > 0 || iv.hi < 0);
}

// The rate over budget-long sequences resampled (with replacement) from the blocks after centring them on 0
// (the A/A truth): this silicon's noise, its shape and tails, with no effect in it.
function falseAlarmRate(xs: readonly number[], p: MixtureParams, seed: number, budgetBlocks: number): number {
  const rand = seededRandom(seed);
  const m = mean(xs);
  const centred = xs.map((x) => x - m);
  let alarms = 0;
  for (let r = 0; r < AA_RESAMPLES; r++) {
    const draw = Array.from({ length: budgetBlocks }, () => centred[Math.floor(rand() * centred.length)]!);
    if (excludesZero(draw, p)) alarms += 1;
  }
  return alarms / AA_RESAMPLES;
}

// Pure: one metric's A/A figures from the legs of an A/A run (arm B against arm A, which ran the same value).
export function judgeAaMetric(c: ClaimCriterion, legs: readonly LegRecord[], p: MixtureParams, seed: number, budgetBlocks: number): AaRecord {
  const xs = blockObservations(legs, c.quantity, 'B', c.scale).flatMap((b) => (b.x === null ? [] : [b.x]));
  const sd = xs.length >= 2 ? stdev(xs) : null;
  const rate = xs.length >= AA_MIN_BLOCKS ? falseAlarmRate(xs, p, seed, budgetBlocks) : null;
  const falseAlarmThisRun = excludesZero(xs, p);
  const holds = rate !== null && rate <= p.alpha && !falseAlarmThisRun && sd !== null && sd <= p.sigma;
  const unit = c.scale === 'ratio' ? 'block log-ratio' : 'block points delta';
  const text = rate === null
    ? `A/A ${c.key}: ${xs.length} usable block(s); a calibration needs at least ${AA_MIN_BLOCKS} (${BLOCK_LEGS * AA_MIN_BLOCKS} legs: pass --budget ${BLOCK_LEGS * AA_MIN_BLOCKS} or more)`
    : `A/A ${c.key}: ${xs.length} blocks, ${unit} mean ${mean(xs).toFixed(4)}, sd ${sd!.toFixed(4)} against the registered σ ${p.sigma}; this run ${falseAlarmThisRun ? 'DID' : 'did not'} claim a difference; false-alarm rate ${(100 * rate).toFixed(1)}% over ${AA_RESAMPLES} centred resampled sequences of ${budgetBlocks} blocks (seed ${seed}) against α ${p.alpha}`
      + (holds ? ': the registered noise bound holds on this silicon' : ': the registered noise bound does NOT hold on this silicon');
  return {
    key: c.key, blocks: xs.length, xs, observedSd: sd, observedMean: xs.length ? mean(xs) : null, registeredSigma: p.sigma,
    falseAlarmThisRun, falseAlarmRate: rate, resamples: AA_RESAMPLES, seed, alpha: p.alpha, holds, text,
  };
}

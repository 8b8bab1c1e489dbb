import { join } from 'node:path';
import { planAb, type Plan } from '../../plan/plan.js';
import { renderSvg } from '../../report/plots.js';
import { sequentialSpec } from './sequentialPlot.js';
import { writeAtomic } from '../../io/atomic.js';
import { isWarmup, withWarmup } from '../../plan/warmup.js';
import { NhGateError } from '../../errors.js';
import { measured, refused } from '../../quantity/make.js';
import { ledgerPath } from '../../results/ledger.js';
import { readLedger } from '../../results/ledgerRead.js';
import type { RunResult, VerdictRecord } from '../../results/types.js';
import { siliconKey } from '../../silicon/types.js';
import { abVerdict, comparisonNotes, type AbOptions } from './ab.js';
import { compareArms } from './compare.js';
import { FALSE_ALARM_FIGURE, findCalibration, judgeAa, type AaRecord } from './calibration.js';
import type { GateDeps } from '../deps.js';
import { blockBudget, judgeSequential, type SequentialRecord } from './sequentialJudge.js';
import { runSeries, type SeriesOutcome } from '../series.js';
import { BLOCK_LEGS } from './blocks.js';
import { screenLegs } from './legScreen.js';

// nh-gate ab --sequential / --aa: the gate's legs in ABBA blocks, judged after every block by an
// anytime-valid confidence sequence, stopping the moment the verdict is decided (or at the leg budget).

export interface SequentialAbOptions extends AbOptions {
  // A/A calibration: both arms run the gate's A value; the whole budget runs; nothing stops early.
  aa: boolean;
  // --budget: overrides the gate's sequential.maxLegs.
  budgetLegs?: number | undefined;
}

// The gate's sequential block, hypothesis and budget, or a usage error naming the file and field.
function requireSequential(o: SequentialAbOptions) {
  const gate = o.inputs.gate;
  if (!gate) throw new NhGateError('USAGE', `nh-gate ab ${o.aa ? '--aa' : '--sequential'} needs a pre-registered gate`, 'pass --gate FILE whose gate has a hypothesis and a "sequential" block');
  const h = gate.gate.hypothesis;
  if (!h) throw new NhGateError('BAD_INPUT', `${gate.path}: hypothesis: missing — a sequential test needs a pre-registered criterion`, 'add a "hypothesis" with metric, expect and refutedIfLessThanPct');
  const seq = gate.gate.sequential;
  if (!seq) throw new NhGateError('BAD_INPUT', `${gate.path}: sequential: missing — the test needs a registered noise scale and a leg budget`, 'add "sequential": { "sigmaLogRatio": S, "maxLegs": N } (measure S with ab --aa)');
  if (h.metric === 'perOutputToken' && h.refutedIfLessThanPct >= 100) throw new NhGateError('BAD_INPUT', `${gate.path}: hypothesis.refutedIfLessThanPct: ${h.refutedIfLessThanPct}% less time per token leaves no ratio to test`, 'give a percentage below 100');
  const maxLegs = o.budgetLegs ?? seq.maxLegs;
  const budget = blockBudget(maxLegs);
  if ('error' in budget) throw new NhGateError('USAGE', `${o.budgetLegs !== undefined ? '--budget' : `${gate.path}: sequential.maxLegs`}: ${budget.error}`, `give a budget of at least ${BLOCK_LEGS} legs (whole blocks of ${BLOCK_LEGS})`);
  return { gate, h, seq: { ...seq, maxLegs }, blocks: budget.blocks };
}

// Refuses by name when the gate asks for a recent A/A calibration on this silicon and the ledger has none.
async function checkCalibration(o: SequentialAbOptions, deps: GateDeps, gateName: string, days: number | undefined): Promise<string | null> {
  if (days === undefined || o.aa) return null;
  const key = siliconKey(await deps.detectSilicon());
  const c = findCalibration(readLedger(ledgerPath(o.resultsBase)), gateName, key, deps.now(), days);
  if (!c.ok) throw new NhGateError('NO_CALIBRATION', c.message, `run 'nh-gate ab --aa --gate <this gate>' on this machine first`);
  return `calibration: A/A on ${key} at ${c.at} (ledger line ${c.line}): false-alarm rate ${(100 * c.rate).toFixed(1)}%`;
}

function aaVerdict(r: RunResult, a: AaRecord): VerdictRecord {
  const shas = new Set(r.legs.map((l) => l.binarySha256));
  if (shas.size > 1) return { word: 'VOID', exitClass: 'void', reasons: [`the legs ran ${shas.size} different binaries`] };
  if (r.legs.some((l) => l.verdict === 'DIVERGENCE')) return { word: 'DIVERGENCE', exitClass: 'failed', reasons: ['a leg produced wrong tokens'] };
  if (a.falseAlarmRate === null) return { word: 'NOT MEASURED', exitClass: 'void', reasons: [a.text] };
  return a.holds ? { word: 'MEASURED', exitClass: 'passed', reasons: [a.text] } : { word: 'REFUTED', exitClass: 'failed', reasons: [a.text] };
}

// The legs a sequential run may take (warm-up, then the whole budget in ABBA blocks); it stops early.
export function sequentialPlan(o: SequentialAbOptions): Plan {
  const { gate, blocks } = requireSequential(o);
  const g = gate.gate;
  const gateArms = g.arms ?? { A: 'off' as const, B: 'on' as const };
  const arms = o.aa ? { A: gateArms.A, B: gateArms.A } : gateArms;
  return withWarmup(planAb({ recipe: o.inputs.recipe, gate: g, flag: o.inputs.flag!, repeats: blocks * 2, order: o.order ?? g.order, seed: o.seed, mode: o.mode, armValues: arms }), g.warmupLegs ?? 0);
}

// The sequential (or A/A) series: runSeries with a stop rule and the confidence-sequence verdict.
export async function runAbSequential(o: SequentialAbOptions, deps: GateDeps): Promise<SeriesOutcome> {
  const { gate, h, seq, blocks } = requireSequential(o);
  const g = gate.gate;
  const flag = o.inputs.flag!;
  const gateArms = g.arms ?? { A: 'off' as const, B: 'on' as const };
  const arms = o.aa ? { A: gateArms.A, B: gateArms.A } : gateArms;
  const warm = g.warmupLegs ?? 0;
  const calibrationNote = await checkCalibration(o, deps, g.name, seq.requireCalibrationDays);
  const judged = (legs: Array<{ record: RunResult['legs'][number] }>) => legs.map((l) => l.record).filter((l) => !isWarmup(l.index, warm));
  const judge = (legs: Array<{ record: RunResult['legs'][number] }>): SequentialRecord => judgeSequential({ legs: judged(legs), hypothesis: h, seq, armFlagValues: arms, warmupLegs: warm });
  const plannedLegs = warm + blocks * BLOCK_LEGS;
  const out = await runSeries({
    command: 'ab', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? g.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS,
    gateName: o.aa ? `${g.name}-aa` : g.name,
    abPlotTitle: `${flag}${o.aa ? ' A/A' : ''}: per-token times per leg (A=${arms.A}, B=${arms.B})`,
    plan: () => sequentialPlan(o),
    stopWhen: o.aa ? undefined : (legs) => judge(legs).decision.word !== 'UNRESOLVED',
    finalize: (r, legs, done) => {
      const mine = judged(legs);
      const c = compareArms({ legs: mine, metric: h.metric, armFlagValues: arms, hypothesis: o.aa ? null : h, seed: o.seed });
      const s = judge(legs);
      // The series puts its own notes in front; these are the gate's, rebuilt on every call.
      const notes = [...(calibrationNote ? [calibrationNote] : []), ...screenLegs(mine, 0, h.metric === 'perOutputToken' ? 'perOutputToken' : 'busy').notes];
      if (warm) notes.push(`warm-up: the first ${warm} leg(s) ran and were discarded (gate warmupLegs)`);
      if (s.noise.exceedsRegistered) notes.push(`sequential: caution — the observed block log-ratio sd ${s.noise.observedSdLogRatio!.toFixed(4)} exceeds the registered σ ${s.params.sigmaLogRatio}; the stated error rates assume σ (calibrate with ab --aa)`);
      const quantities: RunResult['quantities'] = { ratio: c.ratio };
      const q = s.decision;
      quantities.sequentialRatio = q.estimate === null
        ? refused('sequential ratio', 'NO_SAMPLES', 'no whole block with a log ratio yet')
        : measured(`sequential ratio ${s.criterion.numerator}/${s.criterion.numerator === 'B' ? 'A' : 'B'}`, 'sequentialRatio', q.estimate, 'x', {
          interval: { value: `[${q.ratioLo!.toFixed(4)}, ${q.ratioHi!.toFixed(4)}]`, label: `${Math.round(100 * (1 - s.params.alpha))}% anytime-valid interval (${s.method}, σ ${s.params.sigmaLogRatio}, τ ${s.params.tauLogRatio.toFixed(4)})` },
          blocks: { value: s.noise.usableBlocks, label: 'blocks judged' },
          legs: { value: q.legsUsed, label: 'legs used' },
        });
      const comparison: Record<string, unknown> = { metric: c.metric, numerator: c.numerator, ci: c.ci, spreads: c.spreads, counterDiff: c.counterDiff, armsDiffered: c.armsDiffered, arms, sequential: s };
      if (o.aa) {
        const a = judgeAa(mine, h, seq, o.seed, blocks);
        quantities[FALSE_ALARM_FIGURE] = a.falseAlarmRate === null
          ? refused('A/A false-alarm rate', 'NO_SAMPLES', a.text)
          : measured('A/A false-alarm rate', 'aaFalseAlarmRate', a.falseAlarmRate, 'fraction', {
            blocks: { value: a.blocks, label: 'A/A blocks' }, resamples: { value: a.resamples, label: 'centred resampled sequences' }, seed: { value: a.seed, label: 'seed' },
            sd: { value: a.observedSdLogRatio === null ? null : Number(a.observedSdLogRatio.toPrecision(4)), label: 'observed block log-ratio sd' }, sigma: { value: a.registeredSigma, label: 'registered σ' }, alpha: { value: a.alpha, label: 'α' },
          });
        comparison.aa = a;
        notes.push(a.text, ...comparisonNotes(c).filter((n) => !n.startsWith('hypothesis:')));
        return { quantities, comparison, verdict: done || legs.length > 0 ? aaVerdict(r, a) : r.verdict, notes };
      }
      const cSeq = { ...c, verdict: { word: s.decision.word, text: s.text } };
      comparison.hypothesis = cSeq.verdict;
      notes.push(...comparisonNotes(cSeq), `sequential: stated error rates — wrong SUPPORTED ≤ ${s.errorRates.wrongSupportedMax}, wrong REFUTED ≤ ${s.errorRates.wrongRefutedMax}, either ≤ ${s.errorRates.eitherMax}; assumes ${s.errorRates.assumes}`);
      if (c.ci) notes.push(`fixed-N reading beside it (not the verdict): ${Math.round(c.ci.level * 100)}% bootstrap interval [${c.ci.lo.toFixed(4)}, ${c.ci.hi.toFixed(4)}] over the same legs`);
      const decided = s.decision.word !== 'UNRESOLVED';
      const verdict = abVerdict(r, cSeq, h.refutationFails, decided ? r.legs.length : plannedLegs, true);
      return { quantities, comparison, verdict, notes };
    },
  }, deps);
  // The confidence sequence plot, written once the series is done (beside the run's other plots).
  const s = (out.result.comparison as { sequential?: SequentialRecord } | null)?.sequential;
  if (s && s.blocks.some((b) => b.ratioLo !== null)) {
    writeAtomic(join(out.result.runDir, 'sequential.svg'), await renderSvg(sequentialSpec(`${g.name}${o.aa ? ' A/A' : ''}: anytime-valid interval after each block (${s.decision.word})`, s)));
  }
  return out;
}

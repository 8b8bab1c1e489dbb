import type { LegRecord } from '../../../results/types.js';
import type { BinariesRecord, MetricComparison } from '../../../results/comparison.js';
import { hypothesisClass, isPass, worstClass, type ExitClass, type HypothesisWord } from '../../../verdict/words.js';
import { reason, type Reason } from '../../../verdict/reasons.js';
import type { VerdictRecord } from '../../../verdict/record.js';
import { legClass, legWhy } from '../../verdict.js';
import { claimLine, type Claim } from '../claim.js';
import type { Deviation } from '../deviations.js';

// From the judged criteria and the legs to the run's one verdict: the legs' own faults first (binaries that
// are not what the form says, wrong tokens, an engine refusing its input), then the claim's word by the gate's
// combine rule with its exit class, every reason as data.

export interface VerdictInput {
  claim: Claim;
  // null: a report-only A/B (nothing judged); else the combined word of the criteria (or the A/A's).
  word: HypothesisWord | 'MEASURED' | 'NOT MEASURED' | null;
  // An A/A's REFUTED (the registered noise does not hold) always fails; a claim's follows refutationFails.
  refutationFails: boolean;
  metrics: readonly MetricComparison[];
  // Every leg, warm-up included (a warm-up leg with wrong tokens is still wrong tokens).
  legs: readonly LegRecord[];
  judgedLegs: number;
  expectedJudgedLegs: number;
  binaries: BinariesRecord;
  deviations: readonly Deviation[];
  // Lines the verdict states beside the criteria (the A/A's findings).
  findings: readonly Reason[];
}

// The binaries a form promises: one for every leg, or one per arm for two commits.
function binariesFault(legs: readonly LegRecord[], b: BinariesRecord): Reason | null {
  const groups = b.kind === 'one' ? [legs] : [legs.filter((l) => l.arm === 'A'), legs.filter((l) => l.arm === 'B')];
  const n = Math.max(...groups.map((g) => new Set(g.map((l) => l.binarySha256)).size));
  if (n <= 1) return null;
  return reason('MIXED_BINARIES', b.kind === 'one'
    ? `the legs ran ${n} different binaries — an A/B compares one binary under a flag`
    : `an arm's legs ran ${n} different binaries — each commit's legs run its one build`);
}

// The reasons the legs give: each leg that is not a pass, by name, with why.
function legReasons(legs: readonly LegRecord[]): Reason[] {
  return legs.filter((l) => !isPass(l.verdict)).map((l) => reason('LEG_NOT_PASSED', `leg ${l.index + 1} (${l.label}): ${l.verdict} — ${legWhy(l)} (no speed taken from it)`));
}

// The word and class before the legs' faults are weighed in.
function claimWordClass(i: VerdictInput, legWorst: ExitClass): { word: VerdictRecord['word']; exitClass: ExitClass; reasons: Reason[] } {
  if (i.word === null) {
    const measuredOk = i.metrics.some((m) => m.estimate.status === 'measured');
    // A report-only A/B with a void leg is not a clean measurement: the figures over the other legs are shown
    // beside, and the run is VOID (exit 3), never a quiet MEASURED.
    if (measuredOk && legWorst !== 'passed') return { word: 'VOID', exitClass: worstClass([legWorst, 'void']), reasons: [reason('NO_CLAIM', 'no claim was registered; the figures over the other legs are reported beside')] };
    return { word: measuredOk ? 'MEASURED' : 'NOT MEASURED', exitClass: measuredOk ? 'passed' : 'void', reasons: [reason('NO_CLAIM', 'no claim was registered: the figures and their intervals are reported, nothing is judged')] };
  }
  const reasons = [...i.findings, ...i.metrics.filter((m) => m.word !== null).map((m) => reason('CRITERION', m.text))];
  if (i.word === 'MEASURED' || i.word === 'NOT MEASURED') return { word: i.word, exitClass: i.word === 'MEASURED' ? 'passed' : 'void', reasons };
  return { word: i.word, exitClass: hypothesisClass(i.word, i.refutationFails), reasons };
}

// The run's verdict.
export function abVerdict(i: VerdictInput): VerdictRecord {
  const claim = claimLine(i.claim);
  const head: Reason[] = i.binaries.kind === 'two' ? [reason('TWO_BINARIES', i.binaries.label)] : [];
  const tail: Reason[] = [...legReasons(i.legs), ...i.deviations.map((d) => reason('DEVIATION', d.text))];
  if (i.judgedLegs < i.expectedJudgedLegs) tail.push(reason('MISSING_LEGS', `only ${i.judgedLegs} of ${i.expectedJudgedLegs} legs ran`));
  const mixed = binariesFault(i.legs, i.binaries);
  const withClaim = (v: Omit<VerdictRecord, 'claim'>): VerdictRecord => (claim ? { ...v, claim } : v);
  if (mixed) return withClaim({ word: 'VOID', exitClass: 'void', reasons: [...head, mixed, ...tail] });
  if (i.legs.some((l) => l.verdict === 'DIVERGENCE')) return withClaim({ word: 'DIVERGENCE', exitClass: 'failed', reasons: [...head, ...tail] });
  const legWorst = worstClass(i.legs.filter((l) => !isPass(l.verdict)).map(legClass));
  if (legWorst === 'usage') return withClaim({ word: 'VOID', exitClass: 'usage', reasons: [...head, ...tail] });
  const v = claimWordClass(i, legWorst);
  return withClaim({ ...v, reasons: [...head, ...v.reasons, ...tail] });
}

import { worstClass, worstTokenWord, type TokenWord } from '../verdict/words.js';
import { legClass } from '../verdict/record.js';
import { formatReason, reason, type Reason } from '../verdict/reasons.js';
import { runWitness } from '../verdict/witness.js';
import type { LegRecord, VerdictRecord } from '../results/types.js';

export { legClass };

// Why a leg is not a pass, in one sentence: its void reasons, the disagreement, or its counts.
export function legWhy(l: LegRecord): string {
  if (l.voidReasons.length) return l.voidReasons.map(formatReason).join('; ');
  if (l.crossCheck && !l.crossCheck.agree) return `engine/harness disagreement: ${l.crossCheck.explanation}`;
  return `${l.tokens?.matched ?? 0}/${l.tokens?.compared ?? 0} tokens matched`;
}

// The token gate's verdict over its legs: the worst leg decides, and every non-pass leg is named.
export function tokenGateVerdict(legs: readonly LegRecord[], expected: number): VerdictRecord {
  if (legs.length === 0) return { word: 'VOID', exitClass: 'void', reasons: [reason('MISSING_LEGS', 'no leg finished')] };
  const word: TokenWord = worstTokenWord(legs.map((l) => l.verdict));
  const reasons: Reason[] = [];
  for (const l of legs) if (l.verdict !== 'STRICT PASS') reasons.push(reason('LEG_NOT_PASSED', `leg ${l.index + 1} (${l.label}): ${l.verdict} — ${legWhy(l)}`));
  const missing = legs.length < expected;
  if (missing) reasons.push(reason('MISSING_LEGS', `only ${legs.length} of ${expected} leg(s) ran`));
  const cls = worstClass(legs.map(legClass));
  return { word: missing && word !== 'DIVERGENCE' ? 'VOID' : word, exitClass: missing ? worstClass([cls, 'void']) : cls, reasons, witness: runWitness(legs) };
}

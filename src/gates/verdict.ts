import { VERDICT_CLASS, worstClass } from '../cli/exit.js';
import type { ExitClass } from '../errors.js';
import type { LegRecord, VerdictRecord } from '../results/types.js';

// The class of one leg's verdict; an engine that refused its input (exit 2) is a usage error, not a void.
export function legClass(l: LegRecord): ExitClass {
  if (l.verdict === 'VOID' && l.process.exitCode === 2 && l.voidReasons.some((v) => v.startsWith('REFUSED by the engine'))) return 'usage';
  return VERDICT_CLASS[l.verdict] ?? 'void';
}

const ORDER = ['STRICT PASS', 'NEAR-TIE PASS', 'SHORT', 'VOID', 'DIVERGENCE'];

// The token gate's verdict over its legs: the worst leg decides, and every non-pass leg is named.
export function tokenGateVerdict(legs: LegRecord[], expected: number): VerdictRecord {
  if (legs.length === 0) return { word: 'VOID', exitClass: 'void', reasons: ['no leg finished'] };
  let word = 'STRICT PASS';
  for (const l of legs) if (ORDER.indexOf(l.verdict) > ORDER.indexOf(word)) word = l.verdict;
  const reasons: string[] = [];
  for (const l of legs) {
    if (l.verdict === 'STRICT PASS') continue;
    const why = l.voidReasons.length ? l.voidReasons.join('; ') : l.crossCheck && !l.crossCheck.agree ? `engine/harness disagreement: ${l.crossCheck.explanation}` : `${l.tokens?.matched ?? 0}/${l.tokens?.compared ?? 0} tokens matched`;
    reasons.push(`leg ${l.index + 1} (${l.label}): ${l.verdict} — ${why}`);
  }
  if (legs.length < expected) reasons.push(`only ${legs.length} of ${expected} leg(s) ran`);
  const cls = worstClass(legs.map(legClass));
  return { word: legs.length < expected && word !== 'DIVERGENCE' ? 'VOID' : word, exitClass: legs.length < expected ? worstClass([cls, 'void']) : cls, reasons };
}

import { VERDICT_CLASS, type ExitClass, type VerdictWord } from './words.js';
import type { LegRecord } from '../results/types.js';
import { formatReason, type Reason } from './reasons.js';
import { witnessedWord } from './witness.js';

// The one verdict value a run ends with. Every output serialises this value and decides nothing again:
// the text verdict line, summary.md, junit.xml (by exitClass), the ledger line (by word), --json (as is)
// and the exit code (by exitClass, through src/cli/exit.ts).
export interface VerdictRecord {
  // The verdict word (SPEC §2).
  word: VerdictWord;
  // Its exit class: for a REFUTED this already holds the gate's refutationFails; never re-derive it from word.
  exitClass: ExitClass;
  // Why, as data: {code, message}, the deciding reasons first (an A/B's CRITERION lines, then legs, deviations).
  reasons: Reason[];
  // What an A/B verdict decided, in one line: the claim's test, metric and bound
  // ("non-inferiority of perOutputToken: B/A ≤ 1.1000"); absent for verdicts that decide no claim.
  claim?: string;
  // Who saw the ids of the token verdicts this rests on (src/verdict/witness.ts); absent where none was judged.
  witness?: 'harness' | 'engine' | null;
}

// How JUnit shows an exit class: a pass, a failure (the gate failed; a SHORT run is a failed run), or an
// error (nothing valid to judge, bad input, a harness bug): never a pass for anything that did not pass.
export const JUNIT_OUTCOME: Record<ExitClass, 'pass' | 'failure' | 'error'> = {
  passed: 'pass',
  failed: 'failure',
  short: 'failure',
  void: 'error',
  usage: 'error',
  internal: 'error',
};

// The verdict as one line: word (a pass the harness did not witness as the engine's claim), the claim it
// decided, then its reasons.
export function verdictLine(v: VerdictRecord): string {
  const claim = v.claim ? ` (${v.claim})` : '';
  return `${witnessedWord(v.word, v.witness)}${claim}${v.reasons.length ? ` — ${v.reasons.map(formatReason).join('; ')}` : ''}`;
}

// The class of one leg's verdict; an engine that refused its input (exit 2) is a usage error, not a void.
export function legClass(l: Pick<LegRecord, 'verdict' | 'process' | 'voidReasons'>): ExitClass {
  if (l.verdict === 'VOID' && l.process.exitCode === 2 && l.voidReasons.some((v) => v.code === 'ENGINE_REFUSED')) return 'usage';
  return VERDICT_CLASS[l.verdict];
}

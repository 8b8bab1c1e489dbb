import { isPass, type VerdictWord } from './words.js';

// Who saw the token ids a verdict rests on (SPEC §2): the harness (events or id lines it read) or only the
// engine (its counters and verdict line). The label is written once here; every output prints it this way.
export type Witness = 'harness' | 'engine';

export const ENGINE_CLAIM = "engine's claim: the harness saw no ids";

// A pass the harness did not witness, printed as the engine's claim; every other word as it is.
export function witnessedWord(word: VerdictWord, witness: Witness | null | undefined): string {
  return witness === 'engine' && isPass(word) ? `${word} (${ENGINE_CLAIM})` : word;
}

// A run's witness over its judged legs: the harness only when it saw the ids of every judged leg, null when
// no leg was token-judged.
export function runWitness(legs: ReadonlyArray<{ witness?: Witness | null }>): Witness | null {
  const judged = legs.filter((l) => l.witness === 'harness' || l.witness === 'engine');
  if (judged.length === 0) return null;
  return judged.every((l) => l.witness === 'harness') ? 'harness' : 'engine';
}

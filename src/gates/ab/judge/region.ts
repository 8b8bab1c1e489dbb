import type { HypothesisWord } from '../../../verdict/words.js';
import type { RefutedAs } from '../../../results/comparison.js';
import type { ClaimCriterion } from '../claim.js';
import { levelPct } from '../../../stats/bootstrap.js';

// The one interval-against-claim rule of every form and interval method: an interval wholly inside the
// claim's region supports it, one wholly outside refutes it, one across an edge decides nothing. For a
// superiority or non-inferiority claim the region is a half-line (one bound); for equivalence it is the
// band between two bounds, so "inside" is TOST's rule (both one-sided tests reject at once).

export interface Decision {
  word: HypothesisWord;
  refutedAs: RefutedAs | null;
}

type Judged = Pick<ClaimCriterion, 'region' | 'test' | 'direction' | 'noEffect'>;

// Where [lo, hi] lies against the criterion's region.
export function decide(iv: { lo: number; hi: number }, c: Judged): Decision {
  const { lo, hi } = c.region;
  const inside = (lo === null || iv.lo >= lo) && (hi === null || iv.hi <= hi);
  if (inside) return { word: 'SUPPORTED', refutedAs: null };
  const outside = (hi !== null && iv.lo > hi) || (lo !== null && iv.hi < lo);
  if (!outside) return { word: 'UNRESOLVED', refutedAs: null };
  return { word: 'REFUTED', refutedAs: refutedAs(iv, c) };
}

function refutedAs(iv: { lo: number; hi: number }, c: Judged): RefutedAs {
  if (c.test === 'non-inferiority') return 'worse';
  if (c.test === 'equivalence') return 'outside';
  // Superiority: the whole interval on the wrong side of no effect is an effect the other way.
  const opposite = c.direction === 'lower' ? iv.lo > c.noEffect : iv.hi < c.noEffect;
  return opposite ? 'opposite' : 'smaller';
}

// The sentence for a decision: which interval, against which claim, and for a REFUTED which way.
export function decisionText(c: ClaimCriterion, d: Decision, iv: { lo: number; hi: number }, ivText: string): string {
  const head = `${c.key}: ${ivText}`;
  const claim = `the criterion ${c.bound}`;
  if (d.word === 'SUPPORTED') return `${head} lies entirely within ${claim}`;
  if (d.word === 'UNRESOLVED') return `${head} straddles ${claim}`;
  return `${head} lies entirely outside ${claim}: ${why(c, d.refutedAs!, iv)}`;
}

function why(c: ClaimCriterion, as: RefutedAs, iv: { lo: number; hi: number }): string {
  const worse = c.direction === 'lower' ? 'higher' : 'lower';
  if (as === 'opposite') return `the effect is opposite in direction: arm ${c.subject} is ${worse}, not ${c.direction}`;
  if (as === 'smaller') return 'the effect is smaller than pre-registered';
  if (as === 'worse') return `arm ${c.subject} is ${c.direction} than arm ${c.reference} by more than the margin`;
  const above = c.region.hi !== null && iv.lo > c.region.hi;
  return `the arms differ by more than the margin (arm ${c.subject} is ${above ? 'higher' : 'lower'})`;
}

// The gate's word from its criteria's words. all: SUPPORTED when every one is, REFUTED when any is.
// any: SUPPORTED when one is, REFUTED when every one is. Otherwise UNRESOLVED.
export function combineWords(words: readonly HypothesisWord[], rule: 'all' | 'any'): HypothesisWord {
  if (rule === 'all') return words.every((w) => w === 'SUPPORTED') ? 'SUPPORTED' : words.includes('REFUTED') ? 'REFUTED' : 'UNRESOLVED';
  return words.includes('SUPPORTED') ? 'SUPPORTED' : words.every((w) => w === 'REFUTED') ? 'REFUTED' : 'UNRESOLVED';
}

// The interval as printed: its level, bounds in the effect's digits.
export function intervalText(iv: { lo: number; hi: number; level: number }, scale: 'ratio' | 'points', what = 'interval'): string {
  const d = scale === 'ratio' ? 4 : 2;
  return `${levelPct(iv.level)} ${what} [${iv.lo.toFixed(d)}, ${iv.hi.toFixed(d)}]`;
}

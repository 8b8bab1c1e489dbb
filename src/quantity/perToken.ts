import type { Quantity, Provenance } from './types.js';
import type { Silicon } from '../silicon/types.js';
import { isFiniteNumber, measured, refused, withheld } from './make.js';

// Why the decode window is missing, when it is: the two cases have different remedies.
export type WindowMissing = 'load-line-absent' | 'no-arrival-times';

export interface PerOutputTokenInput {
  // Seconds from the engine's load-complete line to the end of the last generated token; null when not derivable.
  decodeWindowS: number | null | undefined;
  // The TOKEN MATCH line's compared count; null when the line is absent (not derivable, which is not 0).
  tokensCompared: number | null | undefined;
  // The engine's stated load seconds: printed beside the rate, never subtracted (it is outside the window).
  loadS?: number | null;
  // When given and below tokensCompared, the speed was measured on wrong tokens and is void.
  tokensMatched?: number | null;
  windowMissing?: WindowMissing;
  // The clock the window was taken on, and why when it is not the harness's arrival stamps (SPEC §3).
  clock?: { name: string; why: string | null };
  silicon?: Silicon | null;
  provenance?: Provenance;
}

export const PER_OUTPUT_TOKEN = 'per output token';

// Per output token = decode window ÷ tokens compared, or a named refusal for every way that division lies.
export function perOutputToken(input: PerOutputTokenInput): Quantity {
  const name = PER_OUTPUT_TOKEN;
  const { decodeWindowS, tokensCompared, loadS, tokensMatched } = input;
  if (tokensCompared === null || tokensCompared === undefined) {
    return refused(name, 'MISSING_TERM', 'no TOKEN MATCH line — the token count is not derivable from this log (absent, not 0)');
  }
  if (decodeWindowS === null || decodeWindowS === undefined) {
    if (input.windowMissing === 'no-arrival-times') {
      return refused(name, 'MISSING_TERM', 'the log carries no line arrival times, so the decode window is unknown — pass --window T0:T1');
    }
    return refused(name, 'WINDOW_UNKNOWN', 'the engine load-complete line never appeared, so the decode window has no start');
  }
  const numeric: Array<[string, number | null | undefined]> = [
    ['decode window', decodeWindowS],
    ['tokens compared', tokensCompared],
    ['engine load', loadS],
    ['tokens matched', tokensMatched],
  ];
  for (const [label, v] of numeric) {
    if (v !== null && v !== undefined && !isFiniteNumber(v)) {
      return refused(name, 'NON_FINITE', `${label} is ${String(v)} — not a finite number`);
    }
  }
  if (tokensCompared <= 0) {
    return refused(name, 'ZERO_DENOMINATOR', `${tokensCompared} tokens compared — a rate here would divide by nothing`);
  }
  if (decodeWindowS <= 0) {
    return refused(name, 'NON_POSITIVE_WINDOW', `decode window ${decodeWindowS.toFixed(3)} s is not positive — its brackets do not span a decode`);
  }
  if (tokensMatched !== null && tokensMatched !== undefined && tokensMatched < tokensCompared) {
    return refused(name, 'WRONG_TOKENS', `${tokensMatched}/${tokensCompared} tokens matched — a speed measured on wrong tokens is void`);
  }
  const value = decodeWindowS / tokensCompared;
  if (!isFiniteNumber(value) || value <= 0) return refused(name, 'NON_FINITE', `decode window / tokens compared is ${String(value)} — not a representable positive rate`);
  const extra: { silicon?: Silicon | null; provenance?: Provenance } = {};
  if (input.silicon !== undefined) extra.silicon = input.silicon;
  if (input.provenance !== undefined) extra.provenance = input.provenance;
  return measured(
    name,
    'perOutputToken',
    value,
    's',
    {
      decodeWindowS: { value: decodeWindowS, unit: 's', label: 'decode window' },
      tokensCompared: { value: tokensCompared, unit: 'tokens', label: 'tokens compared' },
      loadS: { value: loadS ?? null, unit: 's', label: 'engine load (outside the window, not subtracted)' },
      ...(input.clock ? { clock: { value: input.clock.name, label: 'clock' } } : {}),
      ...(input.clock?.why ? { clockWhy: { value: input.clock.why, label: 'why this clock' } } : {}),
    },
    extra,
  );
}

export const TOKENS_PER_SECOND = 'tokens per second';

// Tokens per second, the figure llama-bench users read: the same two terms as per output token, divided the
// other way. Derived from the per-token quantity (never measured twice), so a refusal carries over by name.
export function tokensPerSecond(perToken: Quantity): Quantity {
  if (perToken.status === 'withheld') return withheld(TOKENS_PER_SECOND, perToken.reason, perToken.message);
  if (perToken.status === 'refused') return refused(TOKENS_PER_SECOND, perToken.reason, perToken.message);
  const windowS = perToken.terms.decodeWindowS?.value;
  const tokens = perToken.terms.tokensCompared?.value;
  if (!isFiniteNumber(windowS) || !isFiniteNumber(tokens)) return refused(TOKENS_PER_SECOND, 'MISSING_TERM', `${perToken.name} carries no decode window or token count to divide`);
  if (windowS <= 0) return refused(TOKENS_PER_SECOND, 'NON_POSITIVE_WINDOW', `decode window ${windowS.toFixed(3)} s is not positive`);
  const extra: { silicon?: Silicon | null; provenance?: Provenance } = {};
  if (perToken.silicon !== undefined) extra.silicon = perToken.silicon;
  if (perToken.provenance !== undefined) extra.provenance = perToken.provenance;
  return measured(TOKENS_PER_SECOND, 'tokensPerSecond', tokens / windowS, 'tokens/s', {
    tokensCompared: { value: tokens, unit: 'tokens', label: 'tokens compared' },
    decodeWindowS: { value: windowS, unit: 's', label: 'decode window' },
  }, extra);
}

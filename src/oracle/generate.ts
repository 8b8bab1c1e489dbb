import { top2 } from './math.js';
import { decodeStep, newState, prefill } from './model.js';
import type { Model, PrefillScan } from './model.js';

// MODEL.md "Generation": decode (prefill once, then single steps) or fresh-prefill (re-prefill every token).
export type GenerationMode = 'decode' | 'fresh-prefill';

// The greedy continuation of one prompt with the oracle's confidence at each position.
export interface Generation {
  tokens: number[];
  top2MarginNats: number[];
  runnerUp: number[];
}

// Greedy generation of exactly maxNew tokens (no stop token, MODEL.md clarification 5).
export function generate(m: Model, prompt: number[], maxNew: number, mode: GenerationMode = 'decode', scan: PrefillScan = 'chunked'): Generation {
  const out: Generation = { tokens: [], top2MarginNats: [], runnerUp: [] };
  const st = newState(m);
  let logits = prefill(m, st, prompt, scan);
  for (let i = 0; i < maxNew; i++) {
    const pick = top2(logits);
    out.tokens.push(pick.token);
    out.top2MarginNats.push(pick.marginNats);
    out.runnerUp.push(pick.runnerUp);
    if (i + 1 === maxNew) break;
    logits = mode === 'decode' ? decodeStep(m, st, pick.token) : prefill(m, newState(m), [...prompt, ...out.tokens], scan);
  }
  return out;
}

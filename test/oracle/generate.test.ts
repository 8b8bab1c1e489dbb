import { describe, expect, it } from 'vitest';
import { parseCheckpoint } from '../../src/oracle/checkpoint.js';
import { buildModel, decodeStep, newState, prefill } from '../../src/oracle/model.js';
import { generate } from '../../src/oracle/generate.js';
import { writeFixture } from './fixture.js';

const model = buildModel(parseCheckpoint(writeFixture(), 'fixture.bin'));
const prompt = [...Buffer.from('The quick brown fox', 'utf8')];

describe('greedy generation on a fixture checkpoint (MAME, G=2, heads per group 4, chunk 3)', () => {
  it('decode and fresh-prefill give the same tokens and margins (same recurrence)', () => {
    const dec = generate(model, prompt, 12, 'decode');
    const fresh = generate(model, prompt, 12, 'fresh-prefill');
    expect(dec.tokens).toHaveLength(12);
    expect(fresh.tokens).toEqual(dec.tokens);
    dec.top2MarginNats.forEach((m, i) => expect(Math.abs(m - fresh.top2MarginNats[i]!)).toBeLessThan(1e-9));
    expect(dec.top2MarginNats.every((m) => m >= 0)).toBe(true);
  });

  it('a chunked prefill and a recurrent prefill give the same logits', () => {
    const a = prefill(model, newState(model), prompt, 'chunked');
    const b = prefill(model, newState(model), prompt, 'recurrent');
    let max = 0;
    for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
    expect(max).toBeLessThan(1e-10);
  });

  it('prefill of n tokens then one decode step equals prefill of n+1 tokens', () => {
    const st = newState(model);
    prefill(model, st, prompt.slice(0, -1));
    const stepped = decodeStep(model, st, prompt[prompt.length - 1]!);
    const full = prefill(model, newState(model), prompt);
    for (let i = 0; i < full.length; i++) expect(Math.abs(stepped[i]! - full[i]!)).toBeLessThan(1e-10);
  });

  it('the state matters: decoding from a fresh state gives different logits', () => {
    const st = newState(model);
    prefill(model, st, prompt.slice(0, -1));
    const stepped = decodeStep(model, st, prompt[prompt.length - 1]!);
    const cold = decodeStep(model, newState(model), prompt[prompt.length - 1]!);
    let max = 0;
    for (let i = 0; i < cold.length; i++) max = Math.max(max, Math.abs(stepped[i]! - cold[i]!));
    expect(max).toBeGreaterThan(1e-6);
  });

  it('refuses an empty prompt and an out-of-vocab token', () => {
    expect(() => generate(model, [], 4)).toThrow(/at least one token/);
    expect(() => generate(model, [256], 4)).toThrow(/outside the vocab/);
  });
});

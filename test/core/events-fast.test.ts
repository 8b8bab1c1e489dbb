import fc from 'fast-check';

// A fixed seed, so CI is deterministic; set NHG_FC_SEED to explore others (a found counterexample becomes a unit test).
fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261202) });
import { describe, expect, it } from 'vitest';
import { EngineEventSchema } from '../../src/config/events.js';
import { fastEngineEvent } from '../../src/gates/leg/eventsFast.js';
import { parseEngineEvents } from '../../src/gates/leg/events.js';
import { parseJsonl } from '../../src/io/jsonl.js';

// The hand check of engine events (issue 25) against zod's schema: wherever the hand check answers, zod
// accepts the same value and returns the same record (same keys, same order); everywhere else zod decides.
// Mutation testing runs these once per mutant: it asks for fewer runs (vitest.core.config.ts sets the variable).
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;

const tNs = fc.bigInt({ min: 0n, max: 2n ** 64n }).map(String);
const safeInt = fc.integer({ min: -1_000_000, max: 1_000_000 });
const mode = fc.constantFrom('decode', 'fresh-prefill', 'both', '');
const fields = fc.dictionary(fc.constantFrom('T', 'nd', 'np', 'chunk_scan_calls', 'state_update_rows', 'x'), fc.oneof(safeInt, fc.double({ noNaN: true, noDefaultInfinity: true })));

// Well-formed records of every kind, as nh-ref writes them.
const valid = fc.oneof(
  tNs.map((t) => ({ event: 'load_start', tNs: t })),
  fc.tuple(tNs, fc.double({ noNaN: true, noDefaultInfinity: true })).map(([t, loadS]) => ({ event: 'load_end', tNs: t, loadS })),
  fc.tuple(tNs, safeInt, safeInt, mode).map(([t, prompt, promptTokens, m]) => ({ event: 'prompt_start', tNs: t, prompt, promptTokens, mode: m })),
  fc.tuple(tNs, safeInt, safeInt, safeInt, mode).map(([t, prompt, index, token, m]) => ({ event: 'token', tNs: t, prompt, index, token, mode: m })),
  fc.tuple(tNs, safeInt, safeInt, mode).map(([t, prompt, generated, m]) => ({ event: 'prompt_done', tNs: t, prompt, generated, mode: m })),
  fc.tuple(tNs, safeInt, fields).map(([t, step, f]) => ({ event: 'counters', tNs: t, step, fields: f })),
  fc.tuple(tNs, safeInt).map(([t, exitCode]) => ({ event: 'done', tNs: t, exitCode })),
);

// Values a mutated field takes: each wrong for some field, right for others.
const odd = fc.oneof(
  fc.constantFrom<unknown>(null, true, '', ' 12', '12 ', '1e3', '-1', '١٢', '12\n', 1.5, -0, 2 ** 53, 2 ** 53 + 2, 1e308, [], [1], {}, { a: 'x' }, 'token', 'done', 'load_end', 'decode'),
  fc.integer(), fc.double({ noNaN: true }), fc.string({ maxLength: 6 }), fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
);
const key = fc.constantFrom('event', 'tNs', 'loadS', 'prompt', 'promptTokens', 'index', 'token', 'mode', 'generated', 'step', 'fields', 'exitCode', 'extra', '__proto__');

// A valid record changed: a key dropped, set to an odd value, or added (the JSON text carries it, "__proto__" too).
const mutated = fc.tuple(valid, fc.array(fc.tuple(fc.constantFrom('drop', 'set'), key, odd), { minLength: 1, maxLength: 3 })).map(([rec, edits]) => {
  let text = JSON.stringify(rec);
  for (const [op, k, v] of edits) {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (op === 'drop') delete o[k];
    const body = JSON.stringify(o).slice(1, -1);
    text = op === 'set' ? `{${body}${body ? ',' : ''}${JSON.stringify(k)}:${JSON.stringify(v)}}` : JSON.stringify(o);
  }
  return text;
});

// zod's answer, the hand check's, and the pair's (what parseEngineEvents takes) for one line of JSON.
function both(text: string): { zod: ReturnType<typeof EngineEventSchema.safeParse>; fast: unknown } {
  const json: unknown = JSON.parse(text);
  return { zod: EngineEventSchema.safeParse(json), fast: fastEngineEvent(json) };
}

function agrees(text: string): void {
  const { zod, fast } = both(text);
  if (fast === undefined) return;
  expect(zod.success, text).toBe(true);
  expect(fast, text).toStrictEqual(zod.data);
  expect(Object.keys(fast as object), text).toEqual(Object.keys(zod.data as object));
}

describe('the events hand check agrees with the zod schema', () => {
  it('takes every well-formed record, as zod returns it', () => {
    fc.assert(fc.property(valid, (rec) => {
      const text = JSON.stringify(rec);
      expect(both(text).fast, text).toBeDefined();
      agrees(text);
    }), { numRuns: runs(2000) });
  });

  it('never takes a record zod refuses, nor returns another record than zod (mutated records)', () => {
    fc.assert(fc.property(mutated, agrees), { numRuns: runs(5000) });
  });

  it('leaves the unusual to zod: unsafe integers, a __proto__ field, extra keys are dropped as zod drops them', () => {
    const cases = [
      '{"event":"token","tNs":"1","prompt":0,"index":9007199254740993,"token":1,"mode":"decode"}',
      '{"event":"counters","tNs":"1","step":1,"fields":{"__proto__":1,"a":2}}',
      '{"event":"counters","tNs":"1","step":1,"fields":[]}',
      '{"event":"done","tNs":"1","exitCode":0,"extra":[1,2]}',
      '{"event":"load_start","tNs":"1\\n"}',
      '[{"event":"load_start","tNs":"1"}]',
    ];
    expect(cases.map((c) => both(c).fast === undefined)).toEqual([true, true, true, false, true, true]);
    for (const c of cases) agrees(c);
    expect(both(cases[3]!).fast).toStrictEqual({ event: 'done', tNs: '1', exitCode: 0 });
  });

  it('reads a whole file exactly as the zod line reader does: records, garbage lines and their reasons', () => {
    const file = fc.array(fc.oneof(valid.map((r) => JSON.stringify(r)), mutated, fc.constantFrom('', '   ', 'not json', '{"event":"token"', '{}')), { maxLength: 30 });
    fc.assert(fc.property(file, fc.boolean(), (lines, newline) => {
      const text = lines.join('\n') + (newline ? '\n' : '');
      const want = parseJsonl(text, EngineEventSchema);
      const got = parseEngineEvents(text);
      expect(got.garbage).toBe(want.garbage.length);
      expect(got.garbageLines).toEqual(want.garbage.slice(0, 3));
      const doneWant = [...want.records].reverse().find((r) => r.event === 'done');
      expect(got.doneExit).toBe(doneWant?.event === 'done' ? doneWant.exitCode : null);
      expect(got.counters).toEqual(want.records.flatMap((r) => (r.event === 'counters' ? [{ step: r.step, fields: r.fields }] : [])));
      expect([...got.modes.values()].reduce((n, m) => n + m.tokenNs.length, 0)).toBe(want.records.filter((r) => r.event === 'token').length);
    }), { numRuns: runs(500) });
  });

  it('hands zod every field of the wrong type, and every value that is not an object', () => {
    const good: Record<string, Record<string, unknown>> = {
      load_start: { event: 'load_start', tNs: '1' },
      load_end: { event: 'load_end', tNs: '1', loadS: 0.5 },
      prompt_start: { event: 'prompt_start', tNs: '1', prompt: 0, promptTokens: 3, mode: 'decode' },
      token: { event: 'token', tNs: '1', prompt: 0, index: 0, token: 7, mode: 'decode' },
      prompt_done: { event: 'prompt_done', tNs: '1', prompt: 0, generated: 1, mode: 'decode' },
      counters: { event: 'counters', tNs: '1', step: 1, fields: { T: 1 } },
      done: { event: 'done', tNs: '1', exitCode: 0 },
    };
    for (const rec of Object.values(good)) {
      expect(fastEngineEvent(rec)).toStrictEqual(EngineEventSchema.parse(rec));
      for (const k of Object.keys(rec)) {
        for (const wrong of [null, 'x', 1.5, {}, [], true]) {
          const bad = { ...rec, [k]: wrong };
          if (EngineEventSchema.safeParse(bad).success) continue;
          expect(fastEngineEvent(bad), JSON.stringify(bad)).toBeUndefined();
        }
      }
    }
    for (const v of [null, undefined, 1, 'x', true, [], [good.done]]) expect(fastEngineEvent(v)).toBeUndefined();
    for (const t of ['', ' 1', '1 ', 'x1', '1x', '1\n', '-1', '1.0', '١']) expect(fastEngineEvent({ ...good.done, tNs: t }), t).toBeUndefined();
    for (const f of [undefined, null, 1, 'x', [1], { a: 'x' }, { a: null }]) expect(fastEngineEvent({ ...good.counters, fields: f })).toBeUndefined();
  });

  it("an nh-ref events file's lines all take the fast path", () => {
    const lines = [
      '{"event":"load_start","tNs":"35027900951897"}',
      '{"event":"load_end","tNs":"35027916667058","loadS":0.015698}',
      '{"event":"prompt_start","tNs":"35027916806976","prompt":0,"promptTokens":19,"mode":"decode"}',
      '{"event":"counters","tNs":"35027917949646","step":1,"fields":{"T":19,"nd":0,"np":19,"state_update_rows":0,"chunk_scan_calls":3,"conv_update_rows":0,"conv_fwd_calls":3,"device_blocks":0,"reference_tier_ops":0,"device_forward_blocks":0}}',
      '{"event":"token","tNs":"35027917960001","prompt":0,"index":0,"token":72,"mode":"decode"}',
      '{"event":"prompt_done","tNs":"35027918000000","prompt":0,"generated":1,"mode":"decode"}',
      '{"event":"done","tNs":"35027918100000","exitCode":0}',
    ];
    for (const l of lines) {
      expect(both(l).fast, l).toBeDefined();
      agrees(l);
    }
  });
});

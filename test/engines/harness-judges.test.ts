import { describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { resolveProfile } from '../../src/config/profiles.js';
import { createDriverReader } from '../../src/profiles/reader.js';
import { judgeFromIds, judgeFromRows } from '../../src/gates/leg/tokens.js';
import { crossCheck } from '../../src/gates/leg/crosscheck.js';
import { engineTimerFigure, harnessAfterFirst, timerRatio } from '../../src/gates/leg/engineTimer.js';
import type { ModeEvents } from '../../src/gates/leg/events.js';
import { interTokenLatency, timeToFirstToken } from '../../src/gates/leg/latency.js';
import { golden } from '../gates/fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');
const profile = resolveProfile('profiles/llama-server.json', ROOT);

function read(lines: string[]) {
  const r = createDriverReader(profile);
  lines.forEach((l, i) => r.push(l, i * 0.5));
  return r.report();
}

const IDS_OK = [
  '[llama-server] engine loaded in 0.250s (m.gguf, port 1)',
  '[llama-server] prompt 0 ids: 10 11 12 13',
  '[llama-server] prompt 0: eval time = 3.000 ms / 4 tokens (llama.cpp timer)',
  '[llama-server] prompt 0: prompt_tokens=3 generated=4 wall=0.01s',
  '[llama-server] prompt 1 ids: 20 21 22 23',
  '[llama-server] prompt 1: eval time = 6.000 ms / 4 tokens (llama.cpp timer)',
  '[llama-server] prompt 1: prompt_tokens=2 generated=4 wall=0.01s',
];

describe('a driver that prints only ids is judged by the harness', () => {
  it('reads the ids, the rows and the engine timer through the llama-server profile', () => {
    const rep = read(IDS_OK);
    expect(rep.load?.loadS).toBe(0.25);
    expect(rep.ids.map((l) => [l.prompt, l.tokens])).toEqual([[0, [10, 11, 12, 13]], [1, [20, 21, 22, 23]]]);
    expect(rep.prompts.map((p) => [p.prompt, p.promptTokens, p.generated])).toEqual([[0, 3, 4], [1, 2, 4]]);
    expect(rep.engineTimer.map((t) => [t.prompt, t.decodeS, t.tokens, t.steps])).toEqual([[0, 0.003, 4, 3], [1, 0.006, 4, 3]]);
  });

  it('STRICT PASS on its own count, and the cross-check says the engine made no claim', () => {
    const rep = read(IDS_OK);
    const j = judgeFromIds(golden(), 'decode', rep.ids, rep.prompts);
    expect([j.word, j.source, j.compared, j.matched]).toEqual(['STRICT PASS', 'printed ids', 8, 8]);
    const c = crossCheck(j, rep, 0, 0);
    expect(c.agree).toBe(true);
    expect(c.explanation).toMatch(/no claim of its own/);
  });

  it('DIVERGENCE at the first wrong id, NEAR-TIE PASS where the golden margin licenses it, SHORT when short', () => {
    const wrong = read(IDS_OK.map((l) => l.replace('ids: 10 11 12 13', 'ids: 10 99 12 13')));
    const j = judgeFromIds(golden(), 'decode', wrong.ids, wrong.prompts);
    expect(j.word).toBe('DIVERGENCE');
    expect(j.prompts[0]!.firstMismatch).toMatchObject({ position: 1, got: 99, exp: 11 });
    const tie = read(IDS_OK.map((l) => l.replace('ids: 20 21 22 23', 'ids: 20 21 77 78')));
    expect(judgeFromIds(golden(), 'decode', tie.ids, tie.prompts).word).toBe('NEAR-TIE PASS');
    const short = read(IDS_OK.map((l) => l.replace('ids: 20 21 22 23', 'ids: 20 21')));
    expect(judgeFromIds(golden(), 'decode', short.ids, short.prompts).word).toBe('SHORT');
  });

  it('an ids line in the wrong shape is named, with the fix, and nothing is judged from it', () => {
    const bad = read(IDS_OK.map((l) => l.replace('ids: 10 11 12 13', 'ids: [10, "x"]')));
    const j = judgeFromIds(golden(), 'decode', bad.ids, bad.prompts);
    expect(j.word).toBe('VOID');
    expect(j.reasons.map((r) => `${r.code}: ${r.message}`).join('\n')).toMatch(/prompt 0: the ids line \(log line 2\) is not a list of integers.*print the generated ids as integers separated by spaces/);
  });

  it('an engine that claims (a verdict line) and disagrees is still a failure', () => {
    const rep = read([...IDS_OK, '[llama-server] DIVERGENCE: my own count']);
    const j = judgeFromIds(golden(), 'decode', rep.ids, rep.prompts);
    const c = crossCheck(j, rep, 0, 0);
    expect(c.agree).toBe(false);
    expect(c.explanation).toMatch(/no TOKEN MATCH line/);
  });

  it('a no-claim driver that exits non-zero has made a claim by its exit code', () => {
    const rep = read(IDS_OK);
    const j = judgeFromIds(golden(), 'decode', rep.ids, rep.prompts);
    expect(crossCheck(j, rep, 1, 0).agree).toBe(false);
  });
});

describe('rows with counts and no ids are the engine\'s claim', () => {
  it('labelled engine claim, never DIVERGENCE when nothing diverged', () => {
    const row = (prompt: number) => ({ line: 1, tS: 1, block: -1, prompt, promptTokens: prompt === 0 ? 3 : 2, generated: 4, goldenWidth: 4, compared: 4, matched: 4, wallS: 1, short: false, got: null, exp: null });
    const j = judgeFromRows(golden(), 'decode', [row(0), row(1)]);
    expect(j.source).toBe('engine claim');
    expect(j.word).toBe('STRICT PASS');
  });
});

describe('the engine timer beside the harness figure', () => {
  it('per token after the first from arrival stamps, the engine timer in its units, and their ratio', () => {
    const m: ModeEvents = { tokens: new Map(), tokenNs: [], promptTokenCounts: new Map(), promptStartNs: new Map([[0, -4_000_000n], [1, -1_999_995n]]), tokenNsByPrompt: new Map([[0, [0n, 1_000_000n, 2_000_000n, 3_000_000n]], [1, [5n, 2_000_005n, 4_000_005n, 6_000_005n]]]) };
    const h = harnessAfterFirst(m);
    expect(h.status === 'measured' && h.value).toBeCloseTo(0.0015, 12);
    const e = engineTimerFigure(read(IDS_OK).engineTimer);
    expect(e?.status === 'measured' && e.value).toBeCloseTo(0.0015, 12);
    const r = timerRatio(h, e);
    expect(r?.status === 'measured' && r.value).toBeCloseTo(1, 9);
    const ttft = timeToFirstToken(m);
    expect(ttft.status === 'measured' && [ttft.value, ttft.terms.min?.value, ttft.terms.max?.value]).toEqual([0.002, 0.002, 0.004]);
    const itl = interTokenLatency(m);
    expect(itl.status === 'measured' && [itl.value, itl.terms.p90?.value, itl.terms.gaps?.value]).toEqual([0.001, 0.002, 6]);
  });

  it('unit-aware: us and s captures convert; an unknown unit is refused, not guessed', () => {
    const e = read(['x eval time = 1500 us / 4 tokens', 'y eval time = 0.0015 s / 4 runs']).engineTimer;
    expect(e.map((t) => t.decodeS)).toEqual([0.0015, 0.0015]);
    expect(read(['prompt eval time = 5 ms / 3 tokens']).engineTimer).toEqual([]);
    expect(engineTimerFigure([{ line: 1, tS: null, prompt: null, decodeS: Number.NaN, tokens: 4, steps: 3 }])?.status).toBe('refused');
  });
});

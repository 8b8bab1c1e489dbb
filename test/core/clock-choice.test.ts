import { describe, expect, it } from 'vitest';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NH_REF } from '../../src/profiles/builtin.js';
import { parseEngineEvents, type ModeEvents } from '../../src/gates/leg/events.js';
import { ENGINE_CLOCK, HARNESS_CLOCK, backwardsStamps, collapsedGaps, decodeClock, engineTimes } from '../../src/gates/leg/clocks.js';
import { ITL_ENGINE_TIMER, interTokenLatency, timeToFirstToken } from '../../src/gates/leg/latency.js';
import { harnessAfterFirst } from '../../src/gates/leg/engineTimer.js';
import { judgeLeg, type LegObservation } from '../../src/gates/leg/judge.js';
import { renderQuantity } from '../../src/quantity/render.js';
import { measured } from '../../src/quantity/make.js';
import { golden } from '../gates/fixtures.js';

// Per-token figures from a clock that resolves them (SPEC §3, issues 21 and 25).

const mode = (byPrompt: Array<[number, bigint[]]>, starts: Array<[number, bigint]> = []): ModeEvents => ({
  tokens: new Map(), promptTokenCounts: new Map(), tokenNs: byPrompt.flatMap(([, ts]) => ts),
  tokenNsByPrompt: new Map(byPrompt), promptStartNs: new Map(starts),
});

describe('backwards and collapsed stamps', () => {
  it('names the first stamp that runs backwards', () => {
    expect(backwardsStamps(0n, mode([[0, [10n, 20n, 30n]]], [[0, 5n]]))).toBeNull();
    expect(backwardsStamps(0n, mode([[0, [10n, 20n, 30n]]], [[0, 5_000_010n]]))).toBe("prompt 0: its first token is stamped 5.000 ms before its prompt_start");
    expect(backwardsStamps(0n, mode([[0, [10n, 3_000_020n, 2_000_030n]]]))).toBe('prompt 0: token event 3 is stamped 1.000 ms before the token event written ahead of it');
    expect(backwardsStamps(2_000_000n, mode([[0, [1_000_000n, 3_000_000n]]]))).toBe('the first token is stamped 1.000 ms before load_end');
    expect(backwardsStamps(null, mode([[0, [1n, 1n]]]))).toBeNull();
  });

  it('counts the gaps of tokens that share one stamp', () => {
    expect(collapsedGaps(mode([[0, [1n, 1n, 2n, 2n]], [1, [5n, 6n]]]))).toEqual({ zero: 2, gaps: 4 });
    expect(collapsedGaps(mode([[0, [1n]]]))).toEqual({ zero: 0, gaps: 0 });
  });

  it('TTFT, ITL and per token after the first: refused from backwards stamps (CLOCK_BACKWARDS)', () => {
    const back = mode([[0, [1_000_000n, 900_000n]]], [[0, 0n]]);
    for (const q of [timeToFirstToken(back), interTokenLatency(back), harnessAfterFirst(back)]) expect(q.status === 'refused' && q.reason).toBe('CLOCK_BACKWARDS');
    const early = mode([[0, [1_000_000n, 2_000_000n]]], [[0, 1_500_000n]]);
    expect(timeToFirstToken(early)).toMatchObject({ status: 'refused', message: expect.stringMatching(/0\.500 ms before its prompt_start/) });
  });

  it('collapsed arrivals: ITL refused, or the engine\'s own timer where the profile reads one, and it says which', () => {
    const chunky = mode([[0, [1_000_000n, 2_000_000n, 2_000_000n, 4_000_000n]]], [[0, 0n]]);
    const itl = interTokenLatency(chunky);
    expect(itl.status === 'refused' && [itl.reason, itl.message]).toEqual(['ARRIVALS_COLLAPSED', expect.stringMatching(/^1 of 3 gaps are 0 s: tokens shared one arrival stamp .* the profile reads no engine timer/)]);
    const timer = measured("per output token after the first (the engine's own timer)", 'afterFirst', 0.0011, 's', { steps: { value: 3, unit: 'tokens' } });
    const fromTimer = interTokenLatency(chunky, null, timer);
    expect(fromTimer.status === 'measured' && [fromTimer.name, fromTimer.value, String(fromTimer.terms.collapsed?.value)]).toEqual([ITL_ENGINE_TIMER, 0.0011, expect.stringMatching(/^1 of 3 gaps are 0 s/)]);
    expect(harnessAfterFirst(chunky)).toMatchObject({ status: 'refused', reason: 'ARRIVALS_COLLAPSED' });
    // The first token shares its stamp with the second: its own arrival is unknown.
    const firstTwo = mode([[0, [1_000_000n, 1_000_000n, 2_000_000n]]], [[0, 0n]]);
    expect(timeToFirstToken(firstTwo)).toMatchObject({ status: 'refused', reason: 'ARRIVALS_COLLAPSED' });
    expect(timeToFirstToken(chunky).status).toBe('measured');
    expect(interTokenLatency(mode([[0, [1n, 2n]]])).status).toBe('measured');
  });
});

describe('the decode window from the clock that resolves it', () => {
  const engine = { startNs: 1_000_000_000n, endNs: 1_050_000_000n, firstTokenS: 1.002, windowS: 0.05, backwards: null };
  it('harness arrival stamps when the load line was read before the decode began', () => {
    expect(decodeClock({ startS: 1.001, endS: 1.06 }, engine)).toEqual({ ok: true, windowS: expect.closeTo(0.059, 9), clock: HARNESS_CLOCK, why: null });
    expect(decodeClock({ startS: 5, endS: 6 }, null)).toEqual({ ok: true, windowS: 1, clock: 'harness arrival stamps', why: null });
    // Read at the very instant of the first token is not before it: the engine's clock.
    expect(decodeClock({ startS: 1.002, endS: 1.06 }, engine)).toMatchObject({ ok: true, clock: ENGINE_CLOCK });
    expect(HARNESS_CLOCK).toBe('harness arrival stamps');
  });
  it('one read (window 0), or a load line read after decode output: the engine event clock, and why', () => {
    const zero = decodeClock({ startS: 1.07, endS: 1.07 }, engine);
    expect(zero).toEqual({ ok: true, windowS: expect.closeTo(0.05, 9), clock: ENGINE_CLOCK, why: 'the load line and the last prompt row arrived in one read (harness window 0 s)' });
    const late = decodeClock({ startS: 1.012, endS: 1.06 }, engine);
    expect(late.ok && [late.clock, late.why]).toEqual([ENGINE_CLOCK, "the load line was read 10.000 ms after the engine's first decode token (it arrived with decode output)"]);
  });
  it('only then refused: no events (NON_POSITIVE_WINDOW), backwards engine stamps (CLOCK_BACKWARDS), an empty engine window', () => {
    const none = decodeClock({ startS: 2, endS: 2 }, null);
    expect(!none.ok && [none.code, none.why]).toEqual(['NON_POSITIVE_WINDOW', expect.stringMatching(/one read .*: arrival stamps cannot resolve this window, and the driver writes no events/)]);
    const back = decodeClock({ startS: 2, endS: 2 }, { ...engine, backwards: 'x' });
    expect(!back.ok && [back.code, back.why]).toEqual(['CLOCK_BACKWARDS', "the load line and the last prompt row arrived in one read (harness window 0 s), and the engine's event times run backwards (x)"]);
    const flat = decodeClock({ startS: 2, endS: 2 }, { ...engine, endNs: 1_000_000_000n, windowS: 0 });
    expect(!flat.ok && [flat.code, flat.why]).toEqual(['NON_POSITIVE_WINDOW', "the load line and the last prompt row arrived in one read (harness window 0 s), and the engine's own window (load_end → last token) is 0.000000 s"]);
    const harnessBack = decodeClock({ startS: 3, endS: 2 }, engine);
    expect(!harnessBack.ok && [harnessBack.code, harnessBack.why]).toEqual(['CLOCK_BACKWARDS', "the harness's arrival stamps run backwards: the last prompt row is stamped 1.000000 s before the load line"]);
  });
  it('the engine window spans load_end to the last token, with the first token and the backwards check', () => {
    const t = engineTimes(1_000_000_000n, mode([[0, [1_002_000_000n, 1_050_000_000n]], [1, [1_030_000_000n]]]));
    expect(t).toEqual({ startNs: 1_000_000_000n, endNs: 1_050_000_000n, firstTokenS: 1.002, windowS: 0.05, backwards: null });
    // A host up for ~200 days: absolute seconds near 1.7e7 keep ~2 ns, the window from the integers stays exact.
    const up = 17_280_000_000_000_000n;
    const long = engineTimes(up, mode([[0, [up + 1_000_001n, up + 11_000_003n]]]));
    expect(long!.windowS).toBe(0.011000003);
    expect(Number(long!.endNs) / 1e9 - Number(long!.startNs) / 1e9).not.toBe(0.011000003);
    expect(engineTimes(null, mode([[0, [1n]]]))).toBeNull();
    expect(engineTimes(0n, mode([]))).toBeNull();
  });
});

// A whole decode read in one chunk (what a loaded machine does to the tiny preset): every line shares one
// arrival stamp. Deterministic: the stamps are given, not produced by loading the machine.
describe('a leg whose output arrived in one read takes the engine event clock, and says so', () => {
  const LINES = [
    '[nh-ref] engine loaded in 0.01 s',
    '[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s',
    '[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s',
    '[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)',
    '[nh-ref] STRICT PASS',
  ];
  const events = [
    { event: 'load_end', tNs: '100000000000', loadS: 0.01 },
    ...[0, 1].flatMap((p) => [
      { event: 'prompt_start', tNs: String(100_000_000_000 + p * 10_000_000), prompt: p, promptTokens: p === 0 ? 3 : 2, mode: 'decode' },
      ...[0, 1, 2, 3].map((i) => ({ event: 'token', tNs: String(100_001_000_000 + p * 10_000_000 + i * 1_000_000), prompt: p, index: i, token: (p === 0 ? 10 : 20) + i, mode: 'decode' })),
      { event: 'prompt_done', tNs: String(100_005_000_000 + p * 10_000_000), prompt: p, generated: 4, mode: 'decode' },
    ]),
    { event: 'done', tNs: '100020000000', exitCode: 0 },
  ].map((e) => JSON.stringify(e)).join('\n') + '\n';
  const observe = (arrivalS: (i: number) => number, withEvents: boolean): LegObservation => {
    const r = createDriverReader(NH_REF);
    LINES.forEach((l, i) => r.push(l, arrivalS(i)));
    return {
      index: 0, arm: 'single', label: 'decode', mode: 'decode', flagEnv: {}, binarySha256: null,
      run: { argv: [], pid: 1, startNs: 99_000_000_000n, endNs: 100_100_000_000n, exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] },
      originNs: 99_000_000_000n, report: r.report(), events: withEvents ? parseEngineEvents(events) : null, golden: golden(), deviceClaim: false, busy: null, silicon: null,
      files: { log: 'l', events: withEvents ? 'e.jsonl' : null, samples: null },
    };
  };

  it('one read: measured on the engine event clock (load_end → last token), the text names the clock and why', () => {
    const rec = judgeLeg(observe(() => 100.05, true));
    const q = rec.quantities.perOutputToken!;
    expect(q.status).toBe('measured');
    if (q.status !== 'measured') return;
    expect(q.terms.clock?.value).toBe(ENGINE_CLOCK);
    expect(q.terms.decodeWindowS?.value).toBeCloseTo(0.014, 9);
    expect(q.value).toBeCloseTo(0.014 / 8, 12);
    expect(renderQuantity(q)).toBe('per output token 0.001750 s (decode window 0.014 s / 8 tokens compared; engine load 0.0 s excluded; on the engine event clock: the load line and the last prompt row arrived in one read (harness window 0 s))');
    expect(rec.verdict).toBe('STRICT PASS');
  });

  it('lines read as they came: the harness clock, and the text is the one it always was', () => {
    const rec = judgeLeg(observe((i) => 100 + 0.0005 + i * 0.005, true));
    const q = rec.quantities.perOutputToken!;
    expect(q.status === 'measured' && [q.terms.clock?.value, q.terms.clockWhy]).toEqual([HARNESS_CLOCK, undefined]);
    expect(renderQuantity(q)).toBe('per output token 0.001250 s (decode window 0.010 s / 8 tokens compared; engine load 0.0 s excluded)');
  });

  it('one read and no events: refused by name (NON_POSITIVE_WINDOW), never a 0 s figure', () => {
    const rec = judgeLeg(observe(() => 100.05, false));
    const q = rec.quantities.perOutputToken!;
    expect(q.status === 'refused' && [q.reason, q.message]).toEqual(['NON_POSITIVE_WINDOW', expect.stringMatching(/arrived in one read .* no events with the engine's own times/)]);
  });
});

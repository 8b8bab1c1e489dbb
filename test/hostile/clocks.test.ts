import { describe, expect, it } from 'vitest';
import { hostileA3 } from './witness-repo.js';

// Numbers that cannot be (issues 21 and 25): each timing figure from a clock that resolves it, said which,
// and refused by name when none does. The hostile engine's event stamps are 1 ms apart on its own clock.

describe('a whole decode read in one chunk (the loaded-machine case, made deterministic: one write)', () => {
  it('with events: per output token on the engine event clock, the text says so; STRICT PASS, exit 0', async () => {
    const { run, leg, text } = await hostileA3('batched-read', 'events');
    expect(run.code).toBe(0);
    const q = leg.quantities.perOutputToken;
    expect(q.status).toBe('measured');
    expect(q.terms.clock.value).toBe('engine event clock');
    expect(q.terms.clockWhy.value).toBe('the load line and the last prompt row arrived in one read (harness window 0 s)');
    expect(q.terms.decodeWindowS.value).toBeCloseTo(0.011, 9);
    expect(q.value).toBeCloseTo(0.011 / 8, 12);
    expect(text('summary.md')).toContain('per output token 0.001375 s (decode window 0.011 s / 8 tokens compared; engine load 0.0 s excluded; on the engine event clock: the load line and the last prompt row arrived in one read (harness window 0 s))');
  });

  it('without events: refused NON_POSITIVE_WINDOW with why, never 0 s; the tokens still pass (the engine\'s claim)', async () => {
    const { run, leg } = await hostileA3('batched-read', 'counters');
    expect(run.code).toBe(0);
    expect(leg.quantities.perOutputToken).toMatchObject({ status: 'refused', reason: 'NON_POSITIVE_WINDOW', message: expect.stringMatching(/arrived in one read .*cannot resolve this window, and the driver writes no events/) });
  });
});

describe('event stamps that run backwards', () => {
  it('every figure from them is refused CLOCK_BACKWARDS; the harness clock still gives per output token', async () => {
    const { run, leg } = await hostileA3('backwards', 'events');
    expect(run.code).toBe(0);
    for (const k of ['timeToFirstToken', 'interTokenLatency', 'perTokenAfterFirst', 'perOutputTokenEngine']) {
      expect(leg.quantities[k], k).toMatchObject({ status: 'refused', reason: 'CLOCK_BACKWARDS', message: expect.stringMatching(/prompt 1: token event 2 is stamped 3\.000 ms before the token event written ahead of it/) });
    }
    expect(leg.quantities.perOutputToken).toMatchObject({ status: 'measured', terms: { clock: { value: 'harness arrival stamps' } } });
  });
});

describe('collapsed arrivals (two tokens to a streamed chunk, as llama-server sends them)', () => {
  it('ITL from the engine\'s own timer where the profile reads one, and named so; TTFT and per token after the first refused', async () => {
    const { run, leg } = await hostileA3('collapsed', 'ids-events');
    expect(run.code).toBe(0);
    const itl = leg.quantities.interTokenLatency;
    expect(itl).toMatchObject({ status: 'measured', name: "inter-token latency (mean, the engine's own timer: arrival stamps collapsed)" });
    expect(itl.value).toBeCloseTo(0.0015, 12);
    expect(itl.terms.collapsed.value).toMatch(/^4 of 6 gaps are 0 s/);
    expect(leg.quantities.perTokenAfterFirst).toMatchObject({ status: 'refused', reason: 'ARRIVALS_COLLAPSED' });
    expect(leg.quantities.timeToFirstToken).toMatchObject({ status: 'refused', reason: 'ARRIVALS_COLLAPSED' });
    expect(leg.quantities.perTokenAfterFirstEngineTimer).toMatchObject({ status: 'measured' });
  });

  it('no engine timer: ITL refused ARRIVALS_COLLAPSED, never 0 s', async () => {
    const { leg } = await hostileA3('collapsed-no-timer', 'ids-events');
    expect(leg.quantities.interTokenLatency).toMatchObject({ status: 'refused', reason: 'ARRIVALS_COLLAPSED', message: expect.stringMatching(/the profile reads no engine timer/) });
  });
});

import { describe, expect, it } from 'vitest';
import { compareArms, diffCounters } from '../../src/gates/ab/compare.js';
import { leg } from './fixtures.js';

const hyp = (pct: number) => ({ statement: 's', metric: 'perOutputToken' as const, expect: 'on-faster' as const, refutedIfLessThanPct: pct, refutationFails: true });
const arms = { A: 'off' as const, B: 'on' as const };

function legs(a: number[], b: number[]) {
  return [...a.map((v, i) => leg(2 * i, 'A', v)), ...b.map((v, i) => leg(2 * i + 1, 'B', v))];
}

describe('A/B comparison', () => {
  it('SUPPORTED when the whole interval is beyond the criterion', () => {
    const c = compareArms({ legs: legs([10, 11, 10.5, 10.2], [1, 1.1, 0.9, 1.05]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: hyp(50), seed: 1 });
    expect(c.verdict.word).toBe('SUPPORTED');
    expect(c.ci!.hi).toBeLessThan(0.5);
    expect(c.ratio.status).toBe('measured');
  });

  it('REFUTED when the whole interval shows a smaller effect than registered', () => {
    const c = compareArms({ legs: legs([10, 10.1, 10.05, 10.02], [9.9, 10, 9.95, 9.97]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: hyp(20), seed: 1 });
    expect(c.verdict.word).toBe('REFUTED');
  });

  it('UNRESOLVED when the interval straddles the criterion, or n is too small', () => {
    const wide = compareArms({ legs: legs([10, 2, 10, 2], [8, 1, 9, 1.5]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: hyp(20), seed: 1 });
    expect(wide.verdict.word).toBe('UNRESOLVED');
    const small = compareArms({ legs: legs([10], [1]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: hyp(20), seed: 1 });
    expect(small.verdict.word).toBe('UNRESOLVED');
    expect(small.verdict.text).toMatch(/n too small/);
  });

  it('refuses a ratio over a control arm whose median is 0, instead of printing Infinity (seen on the H200: host-arm busy 0.00%)', () => {
    const c = compareArms({ legs: legs([0, 0, 0], [4.6, 6.3, 3.9]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: hyp(50), seed: 1 });
    expect(c.ratio.status).toBe('refused');
    if (c.ratio.status === 'refused') expect(c.ratio.reason).toBe('ZERO_DENOMINATOR');
    expect(c.verdict.word).toBe('UNRESOLVED');
    expect(c.verdict.text).toMatch(/ZERO_DENOMINATOR/);
    expect(c.verdict.text).not.toMatch(/n too small/);
  });

  it('says no hypothesis was registered without a gate', () => {
    const c = compareArms({ legs: legs([10, 11], [1, 1]), metric: 'perOutputToken', armFlagValues: arms, hypothesis: null, seed: 1 });
    expect(c.verdict.word).toBeNull();
    expect(c.verdict.text).toMatch(/no hypothesis was registered/);
  });

  it('takes no speed from a leg with wrong tokens', () => {
    const ls = legs([10, 11, 10.5], [1, 1, 1]);
    ls.push(leg(9, 'B', 50, { verdict: 'DIVERGENCE' }));
    const c = compareArms({ legs: ls, metric: 'perOutputToken', armFlagValues: arms, hypothesis: null, seed: 1 });
    expect(c.ci!.nTreatment).toBe(3);
  });

  it('diffs counters by field name and reports arms that did not differ', () => {
    const d = diffCounters([leg(0, 'A', 1, { counters: { scan: 10, step: 0 } }), leg(1, 'B', 1, { counters: { step: 5, scan: 1 } })]);
    expect(d).toEqual([{ field: 'scan', A: 10, B: 1 }, { field: 'step', A: 0, B: 5 }]);
    const same = compareArms({ legs: legs([1, 1], [1, 1]), metric: 'perOutputToken', armFlagValues: { A: 'on', B: 'on' }, hypothesis: hyp(20), seed: 1 });
    expect(same.armsDiffered).toBe(false);
    expect(same.verdict.word).not.toBe('SUPPORTED');
  });

  it('prints the spreads the delta cannot be separated from', () => {
    const ls = [leg(0, 'A', 1, { loadS: 654.7 }), leg(1, 'B', 1, { loadS: 778.2 })];
    const c = compareArms({ legs: ls, metric: 'perOutputToken', armFlagValues: arms, hypothesis: null, seed: 1 });
    expect(c.spreads['engine load (all legs)']).toBeCloseTo(0.1886, 3);
  });
});

describe('spread rendering', () => {
  it('never prints NaN for a spread over legs whose minimum is 0 (seen on the H200: host-arm busy 0.00% in every leg)', async () => {
    const { pct } = await import('../../src/gates/ab/ab.js');
    expect(pct(Number.NaN)).toBe('undefined (the smallest leg is 0)');
    expect(pct(null)).toBe('n<2');
    expect(pct(0.326)).toBe('32.6%');
  });
});

import { describe, expect, it } from 'vitest';
import { bindClaim, checkProducible, claimLine, claimSpecOf, onArmOf, regionOf, type ClaimSpec } from '../../src/gates/ab/claim.js';
import { deviationsOf, refuseIfLocked } from '../../src/gates/ab/deviations.js';
import { GateSchema, type Gate } from '../../src/config/gate.js';
import { NhGateError } from '../../src/errors.js';

// The claim, decided once: a hypothesis as a one-metric criterion, every criterion as a region of the effect,
// the "on" arm from the arms' environments, and the command line's departures from the registered design.

const gate = (extra: Record<string, unknown>): Gate => GateSchema.parse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...extra });
const hyp = (expect: string, metric = 'perOutputToken', pct = 20) => ({ hypothesis: { statement: 's', metric, expect, refutedIfLessThanPct: pct } });
const criteria = (metrics: unknown[], combine = 'all') => ({ criteria: { statement: 's', combine, metrics } });
const env = (v: string | null): { env: Record<string, string>; unset: string[] } => ({ env: v === null ? {} : { F: v }, unset: v === null ? ['F'] : [] });
const labels = { A: 'F=off', B: 'F=on' };

describe('a hypothesis and criteria normalise to one shape', () => {
  it('a hypothesis is a superiority ratio criterion keyed "ratio", on the arm it names, in the direction its metric is better', () => {
    expect(claimSpecOf(gate(hyp('on-faster')))).toEqual({ source: 'hypothesis', statement: 's', combine: 'all', refutationFails: true, criteria: [{ key: 'ratio', metric: 'perOutputToken', scale: 'ratio', test: 'superiority', arm: 'on', direction: 'lower', margin: 20 }] });
    expect(claimSpecOf(gate(hyp('off-faster')))!.criteria[0]).toMatchObject({ arm: 'off', direction: 'lower' });
    expect(claimSpecOf(gate(hyp('on-busier', 'busyFraction')))!.criteria[0]).toMatchObject({ arm: 'on', direction: 'higher', metric: 'busyFraction' });
    expect(claimSpecOf(gate(hyp('off-busier', 'busyFraction')))!.criteria[0]).toMatchObject({ arm: 'off', direction: 'higher' });
    expect(claimSpecOf(gate({ report: 'only' }))).toBeNull();
  });

  it('criteria of every claim keep their form; a metric judged twice gets a second key', () => {
    const s = claimSpecOf(gate(criteria([
      { metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 30 },
      { metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: 5, arm: 'off' },
      { metric: 'busyFraction', form: 'points', claim: 'equivalence', withinPoints: 3 },
      { metric: 'busyFraction', form: 'points', claim: 'non-inferiority', worse: 'lower', atMostPoints: 2 },
    ], 'any')))!;
    expect(s.combine).toBe('any');
    expect(s.criteria.map((c) => [c.key, c.test, c.arm, c.direction, c.margin])).toEqual([
      ['perOutputTokenRatio', 'superiority', 'on', 'lower', 30],
      ['perOutputTokenRatio2', 'non-inferiority', 'off', 'higher', 5],
      ['busyFractionPoints', 'equivalence', 'on', null, 3],
      ['busyFractionPoints2', 'non-inferiority', 'on', 'lower', 2],
    ]);
  });

  it('bad criteria are refused at load: a ratio bound at or below 0, equivalence of 100%, a points scale on a time, an unknown claim', () => {
    const bad = (m: unknown) => GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...criteria([m]) });
    expect(JSON.stringify(bad({ metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 100 }).error?.issues)).toMatch(/100% lower leaves no ratio above 0/);
    expect(JSON.stringify(bad({ metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'lower', atMostPct: 120 }).error?.issues)).toMatch(/atMostPct.*120% lower leaves no ratio/);
    expect(bad({ metric: 'perOutputToken', form: 'ratio', expect: 'on-higher', atLeastPct: 150 }).success).toBe(true);
    expect(bad({ metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: 150 }).success).toBe(true);
    expect(bad({ metric: 'perOutputToken', form: 'ratio', claim: 'equivalence', withinPct: 100 }).success).toBe(false);
    expect(bad({ metric: 'perOutputToken', form: 'points', claim: 'equivalence', withinPoints: 3 }).success).toBe(false);
    expect(bad({ metric: 'perOutputToken', form: 'ratio', claim: 'noninferior', worse: 'higher', atMostPct: 5 }).success).toBe(false);
    expect(bad({ metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atLeastPct: 5 }).success).toBe(false);
  });

  it('a sequential gate needs a scale for every metric it judges (a points metric its own, in points)', () => {
    const seq = (s: Record<string, unknown>, c: Record<string, unknown>) => GateSchema.safeParse({ schemaVersion: 1, kind: 'ab', name: 'g', recipe: 'r', ...c, sequential: { maxLegs: 8, ...s } });
    const both = criteria([{ metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: 10 }, { metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 50 }]);
    expect(JSON.stringify(seq({ sigmaLogRatio: 0.1 }, both).error?.issues)).toMatch(/criteria\.metrics\.0 needs a scale in points for busyFraction/);
    expect(JSON.stringify(seq({ scales: { busyFraction: { sigma: 5 } } }, both).error?.issues)).toMatch(/criteria\.metrics\.1 needs a log-ratio scale for perOutputToken/);
    expect(seq({ sigmaLogRatio: 0.1, scales: { busyFraction: { sigma: 5 } } }, both).success).toBe(true);
    expect(JSON.stringify(seq({}, hyp('on-faster')).error?.issues)).toMatch(/the hypothesis needs a log-ratio scale/);
    expect(seq({ scales: { nope: { sigma: 1 } } }, hyp('on-faster')).success).toBe(false);
  });
});

describe('regions: where each claim says the effect lies', () => {
  it.each([
    ['ratio', 'superiority', 'lower', 50, { lo: null, hi: 0.5 }],
    ['ratio', 'superiority', 'higher', 20, { lo: 1.2, hi: null }],
    ['points', 'superiority', 'higher', 10, { lo: 10, hi: null }],
    ['points', 'superiority', 'lower', 10, { lo: null, hi: -10 }],
    ['ratio', 'non-inferiority', 'higher', 10, { lo: null, hi: 1.1 }],
    ['ratio', 'non-inferiority', 'lower', 10, { lo: 0.9, hi: null }],
    ['points', 'non-inferiority', 'lower', 3, { lo: -3, hi: null }],
    ['points', 'non-inferiority', 'higher', 3, { lo: null, hi: 3 }],
    ['ratio', 'equivalence', null, 5, { lo: 0.95, hi: 1.05 }],
    ['points', 'equivalence', null, 2, { lo: -2, hi: 2 }],
  ] as const)('%s %s (%s, %d)', (scale, test, direction, margin, region) => {
    const r = regionOf({ scale, test, direction, margin });
    expect(r.lo === null ? null : Number(r.lo.toFixed(10))).toBe(region.lo);
    expect(r.hi === null ? null : Number(r.hi.toFixed(10))).toBe(region.hi);
  });
});

describe('the "on" arm, decided once from the arms as they run', () => {
  it('is the one arm whose environment sets the flag on; B when both, neither or none can', () => {
    const flag = { env: 'F', on: '1' };
    expect(onArmOf({ A: env('0'), B: env('1') }, flag)).toBe('B');
    expect(onArmOf({ A: env('1'), B: env('0') }, flag)).toBe('A');
    // {A: 'default', B: 'off'} for a flag whose default is on: A runs 1 — the arm the two old rules disagreed on
    expect(onArmOf({ A: env('1'), B: env('0') }, flag)).toBe('A');
    expect(onArmOf({ A: env('1'), B: env('1') }, flag)).toBe('B');
    expect(onArmOf({ A: env('2'), B: env('4') }, flag)).toBe('B');
    expect(onArmOf({ A: env(null), B: env('1') }, flag)).toBe('B');
    expect(onArmOf({ A: { env: { F: '1' }, unset: ['F'] }, B: env('0') }, flag)).toBe('B');
    expect(onArmOf({ A: env('1'), B: env('0') }, null)).toBe('B');
  });

  it('binds each criterion to arms: on, off, or an arm by name; the bound and the claim in words', () => {
    const spec = claimSpecOf(gate(criteria([
      { metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 50 },
      { metric: 'perOutputToken', form: 'ratio', claim: 'non-inferiority', worse: 'higher', atMostPct: 5, arm: 'off' },
      { metric: 'perOutputToken', form: 'ratio', claim: 'equivalence', withinPct: 5, arm: 'B' },
      { metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: 10 },
    ])))!;
    const onA = bindClaim(spec, 'A', { A: 'F=default', B: 'F=off' });
    expect(onA.onArm).toBe('A');
    expect(onA.criteria.map((c) => `${c.subject}/${c.reference}`)).toEqual(['A/B', 'B/A', 'B/A', 'A/B']);
    expect(onA.criteria.map((c) => c.bound)).toEqual(['A/B ≤ 0.5000', 'B/A ≤ 1.0500', '0.9500 ≤ B/A ≤ 1.0500', 'A − B ≥ 10.00 points']);
    expect(onA.criteria[0]!.says).toBe('superiority of perOutputToken: arm A (F=default) at least 50% lower than arm B (F=off)');
    expect(onA.criteria[1]!.says).toBe('non-inferiority of perOutputToken: arm B (F=off) at most 5% higher than arm A (F=default)');
    expect(onA.criteria[2]!.says).toBe('equivalence of perOutputToken: arm B (F=off) within ±5% of arm A (F=default)');
    expect(onA.criteria.map((c) => [c.quantity, c.unit, c.noEffect])).toEqual([['perOutputToken', 's', 1], ['perOutputToken', 's', 1], ['perOutputToken', 's', 1], ['busy', '%', 0]]);
    expect(claimLine(onA)).toBe("4 criteria combined by 'all': superiority of perOutputToken A/B ≤ 0.5000; non-inferiority of perOutputToken B/A ≤ 1.0500; equivalence of perOutputToken 0.9500 ≤ B/A ≤ 1.0500; superiority of busyFraction A − B ≥ 10.00 points");
    const onB = bindClaim(spec, 'B', labels);
    expect(onB.criteria.map((c) => c.subject)).toEqual(['B', 'A', 'B', 'B']);
  });

  it('a report-only claim has one figure, per-token on ÷ off, unbounded and never judged', () => {
    const c = bindClaim(null, 'A', labels);
    expect(c).toMatchObject({ source: 'none', statement: null, onArm: 'A' });
    expect(c.criteria).toHaveLength(1);
    expect(c.criteria[0]).toMatchObject({ key: 'ratio', subject: 'A', reference: 'B', region: { lo: null, hi: null } });
    expect(claimLine(c)).toBeUndefined();
    expect(claimLine(bindClaim(claimSpecOf(gate(hyp('on-faster'))), 'B', labels))).toBe('superiority of perOutputToken: arm B (F=on) at least 20% lower than arm A (F=off): B/A ≤ 0.8000');
  });

  it('a criterion the recipe cannot produce is refused before any leg runs, naming the file and field', () => {
    const spec = claimSpecOf(gate(criteria([{ metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 10 }, { metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: 5 }])))!;
    const cpuOnly = { name: 'r', archs: { cpu: {} }, driver: { eventsArgv: [] } } as never;
    expect(() => checkProducible(spec, cpuOnly, 'g.json')).toThrow(/g\.json: criteria\.metrics\.1\.metric: 'busyFraction' is sampled on a GPU, but recipe 'r' builds only for cpu/);
    const noEvents = { name: 'r', archs: { cpu: {}, '90': {} }, driver: { eventsArgv: [] } } as never;
    const engine: ClaimSpec = { ...spec, criteria: [{ ...spec.criteria[0]!, metric: 'perOutputTokenEngine' }] };
    expect(() => checkProducible(engine, noEvents, 'g.json')).toThrow(/criteria\.metrics\.0\.metric: 'perOutputTokenEngine' comes from the engine's event clock/);
    expect(() => checkProducible({ ...engine, source: 'hypothesis' }, noEvents, 'g.json')).toThrow(/g\.json: hypothesis\.metric/);
    expect(() => checkProducible(spec, noEvents, 'g.json')).not.toThrow();
  });
});

describe('deviations: the command line against the registered design', () => {
  it('records each option that departs, and none that agrees or that the gate did not register', () => {
    const g = gate({ ...hyp('on-faster'), repeats: 4, sequential: { sigmaLogRatio: 0.5, maxLegs: 16 }, warmupLegs: 2 });
    expect(deviationsOf(g, { repeats: 4, order: 'abba', seed: 1, arms: { A: 'off', B: 'on' }, budgetLegs: 16, warmupLegs: 2, mode: 'decode' })).toEqual([]);
    const d = deviationsOf(g, { repeats: 10, order: 'random', seed: 7, arms: { A: 'on', B: 'on' }, budgetLegs: 8, warmupLegs: 0, mode: 'fresh-prefill' });
    expect(d.map((x) => x.text)).toEqual([
      "--repeats 10 departs from the gate's registered repeats 4",
      "--order random departs from the gate's registered order abba",
      "--seed 7 departs from the gate's registered seed 1",
      "--flag NAME=A,B A=on,B=on departs from the gate's registered arms A=off,B=on",
      "--budget 8 departs from the gate's registered sequential.maxLegs 16",
      "--warmup 0 departs from the gate's registered warmupLegs 2",
      "--mode fresh-prefill departs from the gate's registered mode decode",
    ]);
    expect(d[0]).toMatchObject({ option: '--repeats', field: 'repeats', registered: '4', given: '10' });
    expect(deviationsOf(gate(hyp('on-faster')), { budgetLegs: 8 })[0]!.text).toBe("--budget 8 departs from the gate's registered sequential.maxLegs nothing");
    expect(deviationsOf(null, { repeats: 10 })).toEqual([]);
    expect(deviationsOf(gate({ ...hyp('on-faster'), seed: 7 }), { seed: 7 })).toEqual([]);
  });

  it('--arch against a gate registered for other silicon is a deviation; a gate without "arch" registered none', () => {
    const on90 = gate({ ...hyp('on-faster'), arch: '90' });
    expect(deviationsOf(on90, { arch: 'cpu' })).toEqual([{ option: '--arch', field: 'arch', registered: '90', given: 'cpu', text: "--arch cpu departs from the gate's registered arch 90" }]);
    expect(deviationsOf(on90, { arch: '90a' })[0]!.text).toBe("--arch 90a departs from the gate's registered arch 90");
    expect(deviationsOf(on90, { arch: '90' })).toEqual([]);
    expect(deviationsOf(gate(hyp('on-faster')), { arch: '90' })).toEqual([]);
  });

  it('a locked gate refuses a deviation by name (exit 2); an unlocked one, or no deviation, passes', () => {
    const locked = { gate: gate({ ...hyp('on-faster'), locked: true }), path: 'gates/x.json' };
    const d = deviationsOf(locked.gate, { repeats: 10, warmupLegs: 1 });
    let err: unknown;
    try { refuseIfLocked(locked, d); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).exitClass).toBe('usage');
    expect((err as NhGateError).message).toBe("gates/x.json: the gate is locked (\"locked\": true) and --repeats 10 departs from the gate's registered repeats 4");
    expect((err as NhGateError).hint).toMatch(/^drop --repeats, --warmup/);
    expect(() => refuseIfLocked(locked, [])).not.toThrow();
    expect(() => refuseIfLocked({ ...locked, gate: gate(hyp('on-faster')) }, d)).not.toThrow();
    expect(() => refuseIfLocked(null, d)).not.toThrow();
  });
});

import { describe, expect, it, beforeAll, afterEach } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadInputs } from '../../src/gates/setup.js';
import { runAb } from '../../src/gates/ab/run.js';
import { realDeps } from '../../src/gates/deps.js';
import { fakeRepo } from './fake.js';
import { ensureAddonBuilt, FAKE_NVML, pathWithSmi } from '../sampler/helpers.js';

// The real sampler (NVML addon) over the stand-in NVML (native/addon/test/fake_nvml.c): a clock-event reason
// the fake reports on every read reaches the leg as THROTTLED, and a gate with voidIfThrottled voids the leg.
function isolate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-results-'));
  process.env.NH_GATE_LOCK = join(dir, 'gpu.lock');
  return dir;
}

function gate(root: string, voidIfThrottled: boolean): string {
  const path = join(root, `throttle-${voidIfThrottled}.json`);
  writeFileSync(path, JSON.stringify({ schemaVersion: 1, kind: 'ab', name: 'throttle', recipe: 'fake', flag: 'FLAG', repeats: 1, report: 'only', ...(voidIfThrottled ? { voidIfThrottled: true } : {}) }));
  return path;
}

describe('clocks per leg through the stand-in NVML', () => {
  beforeAll(() => {
    ensureAddonBuilt();
    process.env.NH_GATE_NVML_LIBRARY = FAKE_NVML;
    process.env.PATH = pathWithSmi(false);
    process.env.FAKE_NVML_NO_PROCS = '1';
  }, 300_000);
  afterEach(() => {
    delete process.env.FAKE_NVML_CLOCK_REASONS;
    delete process.env.FAKE_NVML_SM_MHZ;
  });

  it('flags a power-capped leg and voids it where the gate asks (THROTTLED)', async () => {
    process.env.FAKE_NVML_CLOCK_REASONS = '4'; // SwPowerCap
    process.env.FAKE_NVML_SM_MHZ = '1410';
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.8' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gate(repo.root, true) }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    const leg = out.result.legs[0]!;
    expect(leg.clocks).toMatchObject({ throttled: true, throttleReasons: ['SwPowerCap'] });
    expect(leg.quantities.smClockMin).toMatchObject({ status: 'measured', value: 1410, unit: 'MHz' });
    expect(leg.verdict).toBe('VOID');
    expect(leg.voidReasons.map((v) => `${v.code}: ${v.message}`).join(' ')).toMatch(/^THROTTLED: clock-event reason\(s\) SwPowerCap/);
    expect(leg.quantities.perOutputToken).toMatchObject({ status: 'refused', reason: 'THROTTLED' });
    expect(out.exitClass).toBe('void');
  }, 60_000);

  it('flags the same leg without voiding it when the gate does not ask, and reports GPM beside busy', async () => {
    process.env.FAKE_NVML_CLOCK_REASONS = '4';
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '1.2' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gate(repo.root, false) }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    const leg = out.result.legs[0]!;
    expect(leg.clocks?.throttled).toBe(true);
    expect(leg.verdict).toBe('STRICT PASS');
    expect(leg.quantities.smUtil).toMatchObject({ status: 'measured', unit: '%', kind: 'gpmActivity' });
    expect(leg.quantities.busy).toMatchObject({ status: 'measured' });
  }, 60_000);

  it('an unthrottled leg is not flagged', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.8' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: gate(repo.root, true) }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    const leg = out.result.legs[0]!;
    expect(leg.clocks).toMatchObject({ throttled: false, throttleReasons: [] });
    expect(leg.verdict).toBe('STRICT PASS');
  }, 60_000);
});

describe('an ab gate with criteria, end to end over stand-in legs', () => {
  it('prints each criterion with its interval and the combined word; a null flag is REFUTED as smaller, not opposite', async () => {
    const { depsWithFakeGpu } = await import('./fake.js');
    const { runLines } = await import('../../src/report/text.js');
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.3' });
    const path = join(repo.root, 'criteria.json');
    writeFileSync(path, JSON.stringify({
      schemaVersion: 1, kind: 'ab', name: 'crit', recipe: 'fake', flag: 'FLAG', repeats: 2,
      criteria: { statement: 's', combine: 'all', metrics: [
        { metric: 'busyFraction', form: 'points', expect: 'on-higher', atLeastPoints: 10 },
        { metric: 'perOutputToken', form: 'ratio', expect: 'on-lower', atLeastPct: 50 },
      ] },
    }));
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, gate: path }, repo.root);
    const out = await runAb({ argv: [], inputs, arch: '90', seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await depsWithFakeGpu());
    expect(out.result.verdict.word).toBe('REFUTED');
    expect(out.exitClass).toBe('failed');
    expect(out.result.quantities.busyFractionPoints).toMatchObject({ status: 'measured', value: 0, unit: 'points' });
    expect(out.result.quantities.perOutputTokenRatio).toMatchObject({ status: 'measured', unit: 'x' });
    const text = runLines(out.result).join('\n');
    expect(text).toMatch(/busyFraction points B − A 0 points/);
    expect(text).toMatch(/CRITERION: busyFractionPoints: 95% interval \[0\.00, 0\.00\] lies entirely outside the criterion B − A ≥ 10\.00 points: the effect is smaller than pre-registered/);
    expect(out.result.verdict.claim).toMatch(/^2 criteria combined by 'all': superiority of busyFraction B − A ≥ 10\.00 points; superiority of perOutputToken B\/A ≤ 0\.5000$/);
    // The verdict is the judge's value of the last call: each criterion's line once, not once per leg.
    expect(out.result.verdict.reasons.filter((r) => r.code === 'CRITERION')).toHaveLength(2);
    const c = out.result.comparison;
    if (c?.kind !== 'ab') throw new Error('an A/B comparison');
    expect(c.claim.combine).toBe('all');
    const saved = { results: c.metrics };
    // busy is exactly 0 points apart (smaller); the null flag's per-token ratio is noise around 1, so which
    // side of 1 its whole interval lands on is the machine's (either sentence is honest; unit tests pin both).
    expect(saved.results[0]!.refutedAs).toBe('smaller');
    expect(['smaller', 'opposite']).toContain(saved.results[1]!.refutedAs);
  }, 60_000);
});

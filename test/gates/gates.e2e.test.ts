import { describe, expect, it } from 'vitest';
import { isolatedResults } from '../helpers/legLogs.js';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadInputs } from '../../src/gates/setup.js';
import { runA3 } from '../../src/gates/a3.js';
import { runAb } from '../../src/gates/ab/run.js';
import { runBusy } from '../../src/gates/busy/busy.js';
import { realDeps } from '../../src/gates/deps.js';
import { pidAlive } from '../../src/exec/lock.js';
import { fakeRepo, depsWithFakeGpu } from './fake.js';

// Each test its own results dir and GPU lock; at the end every leg log in them re-judges to its leg's verdict.
const isolate = isolatedResults();

describe('a3 against stand-in drivers (failures on demand)', () => {
  it('judges tokens but refuses the window when the load line never appears', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'noload' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: isolate() }, await depsWithFakeGpu());
    const leg = out.result.legs[0]!;
    expect(leg.tokens?.word).toBe('STRICT PASS');
    expect(leg.quantities.perOutputToken).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN' });
    expect(leg.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN' });
  });

  it('measures busy over the decode window only, with the load outside it', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.3', FAKE_LOAD_S: '0.3' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: isolate() }, await depsWithFakeGpu());
    expect(out.result.verdict.word).toBe('STRICT PASS');
    const leg = out.result.legs[0]!;
    // The stand-in's readings of 50 are an 'nvml' file's: driver whole percents, counted at their midpoint (issue #23).
    expect(leg.quantities.busy).toMatchObject({ status: 'measured', value: 50.5 });
    const w = leg.decodeWindow!;
    expect(w.endS - w.startS).toBeGreaterThan(0.25);
    expect(leg.loadLine.tS).toBe(w.startS);
    expect(w.startS - leg.process.startS).toBeGreaterThan(0.25);
    expect(existsSync(join(out.result.runDir, 'busy-leg-01-decode.svg'))).toBe(true);
    expect(readFileSync(join(out.result.runDir, 'busy-leg-01-decode.svg'), 'utf8')).toMatch(/^<svg/);
  });

  it('voids a leg with a foreign compute process (CONTENDED)', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.2' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: isolate() }, await depsWithFakeGpu({ foreignPid: 424242 }));
    expect(out.exitClass).toBe('void');
    expect(out.result.legs[0]!.voidReasons.map((v) => `${v.code}: ${v.message}`).join(' ')).toMatch(/CONTENDED: .*424242/);
    expect(out.result.legs[0]!.quantities.busy).toMatchObject({ status: 'refused', reason: 'CONTENDED' });
  });

  it('fails an engine verdict the harness comparison contradicts, and explains it', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'liar' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const out = await runA3({ argv: [], inputs, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    expect(out.exitClass).toBe('failed');
    expect(out.result.verdict.word).toBe('DIVERGENCE');
    expect(out.result.legs[0]!.crossCheck?.explanation).toMatch(/the engine said STRICT PASS, the harness DIVERGENCE/);
  });

  it('fails when the engine claims a divergence the harness does not see (a disagreement is a failure)', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'liar2' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const out = await runA3({ argv: [], inputs, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    expect(out.result.legs[0]!.tokens?.word).toBe('STRICT PASS');
    expect(out.result.verdict.word).toBe('DIVERGENCE');
    expect(out.exitClass).toBe('failed');
    expect(out.result.legs[0]!.crossCheck?.explanation).toMatch(/the engine said DIVERGENCE, the harness STRICT PASS/);
  });

  it('kills a hanging driver\'s whole tree at the timeout', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'hang' }, 1);
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root);
    const t0 = Date.now();
    const out = await runA3({ argv: [], inputs, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    expect(Date.now() - t0).toBeLessThan(10_000);
    const leg = out.result.legs[0]!;
    expect(leg.process.timedOut).toBe(true);
    expect(out.exitClass).toBe('void');
    const log = readFileSync(join(out.result.runDir, leg.logFile), 'utf8');
    const child = Number(/child (\d+)/.exec(log)![1]);
    await new Promise((r) => setTimeout(r, 100));
    expect(pidAlive(child)).toBe(false);
  });
});

describe('ab against stand-in drivers', () => {
  it('surfaces a crash mid-decode (signal and last lines) and keeps the finished legs', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_CRASH_WHEN: '1' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, flag: 'FLAG' }, repo.root);
    const out = await runAb({ argv: [], inputs, repeats: 2, seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await realDeps());
    const legs = out.result.legs;
    expect(legs).toHaveLength(4);
    const crashed = legs.filter((l) => l.arm === 'B');
    expect(crashed.every((l) => l.process.signal === 'SIGSEGV' && l.verdict === 'VOID')).toBe(true);
    expect(crashed[0]!.process.lastLines.join('\n')).toContain('about to fail');
    expect(legs.filter((l) => l.arm === 'A').every((l) => l.verdict === 'STRICT PASS')).toBe(true);
    expect(out.result.quantities.ratio).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
    const saved = JSON.parse(readFileSync(join(out.result.runDir, 'result.json'), 'utf8'));
    expect(saved.legs).toHaveLength(4);
  });
});

describe('busy', () => {
  it('opens the window at the marker line and refuses when the marker never appears', async () => {
    const deps = await depsWithFakeGpu();
    const ok = await runBusy({ argv: [], command: ['sh', '-c', 'sleep 0.3; echo engine loaded; sleep 0.3; echo done'], startMarker: 'engine loaded', resultsBase: isolate() }, deps);
    expect(ok.result.quantities.busy).toMatchObject({ status: 'measured', value: 50.5 });
    const w = (ok.result.comparison as { window: { startS: number; endS: number } }).window;
    expect(w.endS - w.startS).toBeGreaterThan(0.2);
    expect(w.endS - w.startS).toBeLessThan(0.5);
    const none = await runBusy({ argv: [], command: ['sh', '-c', 'echo nothing'], startMarker: 'engine loaded', resultsBase: isolate() }, deps);
    expect(none.result.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN' });
    expect(none.exitClass).toBe('void');
  });

  it('closes the window at the last output line, so teardown after it is outside; prints the host arch as a3 does', async () => {
    const deps = await depsWithFakeGpu();
    const out = await runBusy({ argv: [], command: ['sh', '-c', 'echo start; sleep 0.3; echo last; sleep 0.6'], resultsBase: isolate() }, deps);
    const w = (out.result.comparison as { window: { startS: number; endS: number; closesAt: string } }).window;
    expect(w.endS - w.startS).toBeGreaterThan(0.25);
    expect(w.endS - w.startS).toBeLessThan(0.55);
    expect(w.closesAt).toMatch(/last output line/);
    expect(out.result.arch).toBe('90');
    expect(out.result.quantities.smUtil).toMatchObject({ status: 'refused', reason: 'GPM_UNSUPPORTED' });
  });

  it('closes the window at --end-marker, and refuses WINDOW_UNKNOWN (not closed at exit) when it never matches', async () => {
    const deps = await depsWithFakeGpu();
    const cmd = ['sh', '-c', 'echo engine loaded; sleep 0.3; echo decode done; sleep 0.3; echo bye'];
    const ok = await runBusy({ argv: [], command: cmd, startMarker: 'engine loaded', endMarker: 'decode done', resultsBase: isolate() }, deps);
    const w = (ok.result.comparison as { window: { startS: number; endS: number } }).window;
    expect(w.endS - w.startS).toBeGreaterThan(0.25);
    expect(w.endS - w.startS).toBeLessThan(0.5);
    expect(ok.result.quantities.busy).toMatchObject({ status: 'measured', value: 50.5 });
    const never = await runBusy({ argv: [], command: cmd, endMarker: 'never printed', resultsBase: isolate() }, deps);
    expect(never.result.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN', message: expect.stringMatching(/end marker .*not closed at exit/) });
    expect(never.exitClass).toBe('void');
    await expect(runBusy({ argv: [], command: cmd, endMarker: '(', resultsBase: isolate() }, deps)).rejects.toMatchObject({ code: 'USAGE' });
  });
});

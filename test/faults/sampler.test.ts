// Fault: the GPU sampler fails mid-window (NVML error, the GPU lost). Run through the real addon (dlopen,
// native thread) over the stand-in libnvidia-ml, which loses the GPU after a set number of sample calls.
// NVML is opened once per process, so this file owns its process's NH_GATE_NVML_LIBRARY.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureAddonBuilt, FAKE_NVML, pathWithSmi } from '../sampler/helpers.js';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { H200 } from '../gates/fake.js';

ensureAddonBuilt();
process.env.NH_GATE_NVML_LIBRARY = FAKE_NVML;
process.env.PATH = pathWithSmi(false);
const { loadInputs } = await import('../../src/gates/setup.js');
const { runA3 } = await import('../../src/gates/a3.js');
const { runAb } = await import('../../src/gates/ab/run.js');
const { realDeps } = await import('../../src/gates/deps.js');

// A host that claims an H200 (this one has none) whose NVML is the stand-in; the harness is not a compute process.
async function gpuDeps() {
  return { ...(await realDeps()), detectSilicon: async () => H200 };
}
function isolate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nh-faults-sampler-'));
  process.env.NH_GATE_LOCK = join(dir, 'gpu.lock');
  return dir;
}

afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('FAKE_NVML_')) delete process.env[k];
});

describe('fault: the sampler fails mid-window', () => {
  it('control: the stand-in samples the whole window, busy is measured', async () => {
    process.env.FAKE_NVML_NO_PROCS = '1';
    const repo = floodRepo({ FLOOD_DECODE_S: '1.5' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath });
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: isolate() }, await gpuDeps());
    const leg = out.result.legs[0]!;
    expect(leg.samplerBackend).toBe('nvml');
    // The stand-in NVML reads 40: a driver whole percent, counted at its midpoint (issue #23).
    expect(leg.quantities.busy).toMatchObject({ status: 'measured', value: 40.5 });
  });

  it('the GPU lost at the second drain of a 5 s window, after the first 2 s drain: the leg\'s busy is refused (PARTIAL) by name, per-token and the verdict stand', async () => {
    process.env.FAKE_NVML_NO_PROCS = '1';
    // A point of the sampler's own progress, not a time: it primes, drains at ~2 s, and its next drain (~4 s, in
    // the 5 s window) finds the GPU lost. A wall-clock time raced the flood build under load (CI's 2 cores).
    process.env.FAKE_NVML_FAIL_AFTER_CALLS = '2';
    const repo = floodRepo({ FLOOD_DECODE_S: '5' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath });
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: isolate() }, await gpuDeps());
    const leg = out.result.legs[0]!;
    expect(leg.quantities.busy).toMatchObject({ status: 'refused', reason: 'PARTIAL' });
    expect(leg.quantities.busyShare).toMatchObject({ status: 'refused', reason: 'PARTIAL' });
    expect(leg.samplerNote).toMatch(/SAMPLER_FAILED: the nvml sampler failed mid-window \(.*GPU_IS_LOST.*\); samples end at [\d.]+ s, the decode window at [\d.]+ s/);
    expect(leg.quantities.perOutputToken!.status).toBe('measured');
    expect(leg.verdict).toBe('STRICT PASS');
    expect(out.result.verdict.word).toBe('STRICT PASS');
    expect(out.result.status).toBe('complete');
  });

  it('in an ab, a leg whose sampler died loses only its busy: every leg keeps its per-token time and the comparison is made', async () => {
    process.env.FAKE_NVML_NO_PROCS = '1';
    process.env.FAKE_NVML_FAIL_AT_MONO_S = String(Number(process.hrtime.bigint()) / 1e9 + 1.5);
    const repo = floodRepo({ FLOOD_DECODE_S: '3' });
    const inputs = loadInputs({ command: 'ab', recipe: repo.recipePath, flag: 'FLAG' });
    const out = await runAb({ argv: [], inputs, arch: '90', repeats: 2, seed: 1, mode: 'decode', jobs: 1, resultsBase: isolate() }, await gpuDeps());
    expect(out.result.status).toBe('complete');
    expect(out.result.legs).toHaveLength(4);
    // failed before its first drain: nothing sampled in the window (NO_SAMPLES), or part of it (PARTIAL)
    expect(out.result.legs[0]!.quantities.busy).toMatchObject({ status: 'refused', reason: expect.stringMatching(/^(NO_SAMPLES|PARTIAL)$/) });
    for (const leg of out.result.legs) {
      expect(leg.quantities.perOutputToken!.status).toBe('measured');
      expect(leg.quantities.busy!.status).not.toBe('measured');
    }
    expect(out.result.comparison).not.toBeNull();
  });
});

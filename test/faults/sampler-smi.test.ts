// Fault: the fallback sampler process (nvidia-smi) dies mid-window, through the stand-in nvidia-smi on a
// host with no NVML. NVML is opened once per process, so this file owns its NH_GATE_NVML_LIBRARY.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureAddonBuilt, pathWithSmi } from '../sampler/helpers.js';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { H200 } from '../gates/fake.js';

ensureAddonBuilt();
process.env.NH_GATE_NVML_LIBRARY = '/nonexistent/nh-gate/libnvidia-ml.so.1';
process.env.PATH = pathWithSmi(true);
const { loadInputs } = await import('../../src/gates/setup.js');
const { runA3 } = await import('../../src/gates/a3.js');
const { realDeps } = await import('../../src/gates/deps.js');

afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('FAKE_SMI_')) delete process.env[k];
});

describe('fault: the nvidia-smi sampler dies mid-window', () => {
  it('the leg\'s busy is refused (PARTIAL) by name; per-token and the verdict stand', async () => {
    process.env.FAKE_SMI_DIE_AFTER_MS = '1000';
    const dir = mkdtempSync(join(tmpdir(), 'nh-faults-smi-'));
    process.env.NH_GATE_LOCK = join(dir, 'gpu.lock');
    const repo = floodRepo({ FLOOD_DECODE_S: '3' });
    const inputs = loadInputs({ command: 'a3', recipe: repo.recipePath });
    // The stand-in lists a compute process of its own; this test is about the sampler, not contention.
    const deps = { ...(await realDeps()), detectSilicon: async () => H200, computeProcesses: async () => ({ status: 'measured' as const, backend: 'nvidia-smi' as const, processes: [] }) };
    const out = await runA3({ argv: [], inputs, arch: '90', mode: 'decode', jobs: 1, resultsBase: dir }, deps);
    const leg = out.result.legs[0]!;
    expect(leg.samplerBackend).toBe('nvidia-smi');
    expect(leg.quantities.busy).toMatchObject({ status: 'refused', reason: 'PARTIAL' });
    expect(leg.samplerNote).toMatch(/SAMPLER_FAILED: the nvidia-smi sampler failed mid-window \(.*nvidia-smi exited mid-window.*\)/);
    expect(leg.quantities.perOutputToken!.status).toBe('measured');
    expect(out.result.verdict.word).toBe('STRICT PASS');
  });
});

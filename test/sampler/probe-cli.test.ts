// `nh-gate probe` on a host without NVML or nvidia-smi: it says which backend is unavailable and why.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ensureAddonBuilt, pathWithSmi } from './helpers.js';

ensureAddonBuilt();
process.env.NH_GATE_NVML_LIBRARY = '/nonexistent/nh-gate/libnvidia-ml.so.1';
process.env.PATH = pathWithSmi(false);
const { createProgram } = await import('../../src/cli/main.js');

async function runProbe(args: string[]): Promise<{ out: string; err: string; code: number | undefined }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => ((err += String(s)), true));
  process.exitCode = undefined;
  try {
    await createProgram().parseAsync(['node', 'nh-gate', 'probe', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const code = process.exitCode as number | undefined;
  process.exitCode = undefined;
  return { out, err, code };
}
afterEach(() => {
  process.exitCode = undefined;
});

describe('nh-gate probe', () => {
  it('--json prints one document: cpu-only silicon, NVML unavailable with dlerror, busy sampler none with reasons', async () => {
    const r = await runProbe(['--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as Record<string, any>;
    expect(doc.silicon).toMatchObject({ kind: 'cpu-only', source: 'none' });
    expect(doc.addon.loaded).toBe(true);
    expect(doc.nvml).toMatchObject({ available: false });
    expect(doc.nvml.reason).toContain('cannot open shared object file');
    expect(doc.nvidiaSmi).toMatchObject({ available: false, reason: 'nvidia-smi is not on PATH' });
    expect(doc.busySampler.backend).toBe('none');
    expect(doc.busySampler.reason).toMatch(/NVML unavailable.*nvidia-smi is not on PATH/);
  });
  it('prints a human report that says busy figures will be NOT MEASURED', async () => {
    const r = await runProbe([]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^silicon +cpu-only: /m);
    expect(r.out).toMatch(/^NVML +unavailable: NVML_UNAVAILABLE: cannot load NVML/m);
    expect(r.out).toMatch(/^busy sampler none: busy figures will be NOT MEASURED \(because /m);
  });
  it('refuses a device that is not an index (exit 2, no stack)', async () => {
    const r = await runProbe(['--device', 'first']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^nh-gate: USAGE: --device first is not a GPU index/);
    expect(r.err).not.toContain('    at ');
  });
});

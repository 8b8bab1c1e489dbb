// No NVML (as on CI): probe() says so with the dlerror text, and the chain falls back to nvidia-smi
// (a stand-in on PATH — acceptable here only because the real nvidia-smi runs in scripts/calibrate/run.mjs
// on the H200), then to 'none' (NOT MEASURED, never 0%).
import { readFileSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SampleLineSchema, type SampleLine } from '../../src/config/samples.js';
import { ensureAddonBuilt, monoS, pathWithSmi } from './helpers.js';

ensureAddonBuilt();
const MISSING = '/nonexistent/nh-gate/libnvidia-ml.so.1';
process.env.NH_GATE_NVML_LIBRARY = MISSING;
const { openBusySampler, computeProcesses } = await import('../../src/sampler/index.js');
const { loadAddon } = await import('../../src/sampler/load.js');
const { detectSilicon } = await import('../../src/silicon/detect.js');
const { busyFromSamples } = await import('../../src/quantity/busy.js');

const dir = mkdtempSync(join(tmpdir(), 'nh-smi-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const readSamples = (p: string): SampleLine[] => readFileSync(p, 'utf8').trim().split('\n').map((l) => SampleLineSchema.parse(JSON.parse(l)));
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('FAKE_SMI_')) delete process.env[k];
});

describe('without NVML', () => {
  it('the addon still loads and probe() reports NVML unavailable with the dlerror text', () => {
    const a = loadAddon();
    if (!a.ok) throw new Error(a.reason);
    const p = a.binding.probe();
    expect(p).toMatchObject({ available: false, code: 'NVML_UNAVAILABLE', devices: [] });
    expect(p.message).toContain(`${MISSING}: cannot open shared object file: No such file or directory`);
  });

  it('falls back to nvidia-smi: timestamped rows mapped onto the monotonic clock and labelled as such', async () => {
    process.env.PATH = pathWithSmi(true);
    process.env.FAKE_SMI_UTIL = '30';
    const samplesPath = join(dir, 'smi.jsonl');
    const t0 = monoS();
    const s = await openBusySampler({ samplesPath });
    expect(s.backend).toBe('nvidia-smi');
    expect(s.reason).toContain('NVML unavailable: NVML_UNAVAILABLE cannot load NVML');
    const utilRows = () => readFileSync(samplesPath, 'utf8').split('"kind":"util"').length - 1;
    for (let i = 0; i < 100 && utilRows() < 8; i++) await sleep(100); // the stand-in starts slowly on a loaded box
    const r = await s.stop();
    const t1 = monoS();
    expect(r).toMatchObject({ backend: 'nvidia-smi', partial: false });
    expect(r.samplerCpuS).not.toBeNull();
    const lines = readSamples(samplesPath);
    expect(lines[0]).toMatchObject({ kind: 'header', source: 'nvidia-smi', clock: 'monotonic_s', nominalPeriodMs: 100 });
    if (lines[0]?.kind === 'header') expect(lines[0].clockConversion).toMatch(/host local time.*CLOCK_REALTIME − CLOCK_MONOTONIC/);
    const util = lines.filter((l) => l.kind === 'util');
    expect(util.length).toBe(r.count);
    expect(util.length).toBeGreaterThan(4);
    // Local wall-clock stamps landed inside the run on the harness clock (ms resolution, small margin).
    for (const u of util) {
      expect(u.tS).toBeGreaterThan(t0 - 0.05);
      expect(u.tS).toBeLessThan(t1 + 0.05);
    }
    expect(busyFromSamples(util, { startS: util[1]!.tS, endS: util[util.length - 1]!.tS }).timeWeighted).toMatchObject({ status: 'measured', value: 30 });
  });

  it('nvidia-smi dying mid-window keeps the rows so far and marks partial', async () => {
    process.env.PATH = pathWithSmi(true);
    process.env.FAKE_SMI_DIE_AFTER_MS = '400';
    const samplesPath = join(dir, 'smi-die.jsonl');
    const s = await openBusySampler({ samplesPath });
    // Wait for the stand-in to die (its start-up is slow on a loaded 2-core box), then stop.
    for (let i = 0; i < 100 && !readFileSync(samplesPath, 'utf8').includes('"kind":"error"'); i++) await sleep(100);
    const r = await s.stop();
    expect(r.partial).toBe(true);
    expect(r.errors.join('\n')).toMatch(/nvidia-smi exited mid-window \(code 1.*GPU is lost/);
    const lines = readSamples(samplesPath);
    expect(lines.filter((l) => l.kind === 'util').length).toBeGreaterThan(0);
    expect(lines.some((l) => l.kind === 'error')).toBe(true);
  });

  it('several GPUs through nvidia-smi: chosen explicitly or refused', async () => {
    process.env.PATH = pathWithSmi(true);
    process.env.FAKE_SMI_GPUS = '2';
    await expect(openBusySampler({ samplesPath: join(dir, 'x.jsonl') })).rejects.toMatchObject({ code: 'AMBIGUOUS_DEVICE' });
    await expect(detectSilicon()).rejects.toMatchObject({ code: 'AMBIGUOUS_DEVICE' });
    expect(await detectSilicon({ deviceIndex: 1 })).toMatchObject({ source: 'nvidia-smi', uuid: 'GPU-smi-1', cudaDriverVersion: '13.0', archTarget: '90a' });
  });

  it('no nvidia-smi either: backend none with every reason, nothing written, and a refusal if none is not allowed', async () => {
    process.env.PATH = pathWithSmi(false);
    const samplesPath = join(dir, 'none.jsonl');
    const s = await openBusySampler({ samplesPath });
    expect(s.backend).toBe('none');
    expect(s.reason).toMatch(/NVML unavailable.*; nvidia-smi is not on PATH/);
    const r = await s.stop();
    expect(r).toMatchObject({ backend: 'none', samplesPath: null, count: 0 });
    expect(existsSync(samplesPath)).toBe(false);
    await expect(openBusySampler({ samplesPath, allowBackends: ['nvml', 'nvidia-smi'] })).rejects.toMatchObject({ code: 'SAMPLER_UNAVAILABLE', exitClass: 'void' });
  });

  it('silicon falls back to cpu-only with the CPU model; compute processes say why they are unavailable', async () => {
    process.env.PATH = pathWithSmi(false);
    const s = await detectSilicon();
    expect(s).toMatchObject({ kind: 'cpu-only', source: 'none', gpuName: null });
    expect(s.cpuModel.length).toBeGreaterThan(0);
    const p = await computeProcesses(0);
    expect(p.status).toBe('unavailable');
    if (p.status === 'unavailable') expect(p.reason).toMatch(/NVML_UNAVAILABLE.*nvidia-smi is not on PATH/);
    process.env.PATH = pathWithSmi(true);
    expect(await computeProcesses(0)).toEqual({ status: 'measured', backend: 'nvidia-smi', processes: [{ pid: 4242, usedMemoryBytes: 100 * 1024 * 1024 }] });
  });
});

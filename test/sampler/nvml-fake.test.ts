// The real addon (real dlopen, real thread, real clock handling) over the stand-in libnvidia-ml: the only
// way to run the NVML path on a machine with no GPU. The real NVML path runs in scripts/calibrate/run.mjs on the H200.
// NVML is opened once per process, so this file owns its process's NH_GATE_NVML_LIBRARY; the stand-in reads its
// FAKE_NVML_* settings on every call, so tests change them between cases.
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SampleLineSchema, type SampleLine } from '../../src/config/samples.js';
import { siliconFromNvml } from '../../src/silicon/detect.js';
import { ensureAddonBuilt, FAKE_NVML, monoS, pathWithSmi } from './helpers.js';

ensureAddonBuilt();
process.env.NH_GATE_NVML_LIBRARY = FAKE_NVML;
process.env.PATH = pathWithSmi(false);
const { openBusySampler, computeProcesses } = await import('../../src/sampler/index.js');
const { loadAddon } = await import('../../src/sampler/load.js');
const { detectSilicon } = await import('../../src/silicon/detect.js');
const { busyFromSamples } = await import('../../src/quantity/busy.js');

const dir = mkdtempSync(join(tmpdir(), 'nh-nvml-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const readSamples = (p: string): SampleLine[] => readFileSync(p, 'utf8').trim().split('\n').map((l) => SampleLineSchema.parse(JSON.parse(l)));
const binding = () => {
  const a = loadAddon();
  if (!a.ok) throw new Error(a.reason);
  return a.binding;
};
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'no error';
  } catch (e) {
    return String((e as { code?: unknown }).code);
  }
};

beforeAll(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('FAKE_NVML_')) delete process.env[k];
});
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('FAKE_NVML_')) delete process.env[k];
});

describe('addon over the stand-in NVML', () => {
  it('probe() resolves versioned symbols with fallbacks and reads identity', () => {
    const p = binding().probe();
    expect(p.available).toBe(true);
    expect(p.processesSymbol).toBe('nvmlDeviceGetComputeRunningProcesses_v2'); // _v3 absent → _v2
    expect(p.eventReasonsSymbol).toBe('nvmlDeviceGetCurrentClocksThrottleReasons'); // newer name absent → older
    expect(p.devices[0]).toMatchObject({ name: 'Fake H200', ccMajor: 9, ccMinor: 0, persistenceMode: true, mig: { current: false }, gpmSupported: true });
    // Persistence mode and the application clocks reach the silicon record (beside the identity, not in its key).
    expect(p.devices[0]).toMatchObject({ appSmClockMHz: 1755, appMemClockMHz: 3201 });
    expect(siliconFromNvml(p.devices[0]!, p, 'cpu')).toMatchObject({ persistenceMode: true, appSmClockMHz: 1755, appMemClockMHz: 3201 });
  });

  it('stop() without start(), start() twice, stop() twice and bad options are named errors', async () => {
    const b = binding();
    expect(codeOf(() => new b.Sampler({}).stop())).toBe('SAMPLER_NOT_STARTED');
    expect(codeOf(() => new b.Sampler({}).drain())).toBe('SAMPLER_NOT_STARTED');
    expect(codeOf(() => new b.Sampler({ periodMs: 1 }))).toBe('BAD_ARGUMENT');
    expect(codeOf(() => new b.Sampler({ deviceIndex: 5 }).start())).toBe('NO_SUCH_DEVICE');
    const s = new b.Sampler({ periodMs: 20, utilEveryMs: 20, tailMs: 0 });
    s.start();
    expect(codeOf(() => s.start())).toBe('SAMPLER_ALREADY_STARTED');
    await s.stop();
    await expect(Promise.resolve().then(() => s.stop())).rejects.toMatchObject({ code: 'SAMPLER_ALREADY_STOPPED' });
  });

  it('the addon clock is process.hrtime (CLOCK_MONOTONIC)', () => {
    expect(Math.abs(binding().monotonicNowS() - monoS())).toBeLessThan(0.005);
  });

  it('samples a window end to end: timestamps land on the harness clock, busy is time-weighted, unsupported metrics are named', async () => {
    process.env.FAKE_NVML_UTIL_PCT = '40';
    process.env.FAKE_NVML_CLOCK_REASONS = '4'; // SwPowerCap on every read
    const samplesPath = join(dir, 'ok.jsonl');
    const t0 = monoS();
    const s = await openBusySampler({ samplesPath, periodMs: 50, utilEveryMs: 50, gpmIntervalMs: 100 });
    expect(s.backend).toBe('nvml');
    // Lines are written while running (the JS side drains the thread every second).
    const written = () => readFileSync(samplesPath, 'utf8').trim().split('\n').length;
    for (let i = 0; i < 50 && written() <= 5; i++) await sleep(100);
    expect(written()).toBeGreaterThan(5);
    const r = await s.stop();
    const t1 = monoS();
    expect(r).toMatchObject({ backend: 'nvml', partial: false, samplesPath });
    const lines = readSamples(samplesPath);
    const header = lines[0];
    if (header?.kind !== 'header') throw new Error('no header');
    expect(header.source).toBe('nvml');
    expect(header.clockConversion).toMatch(/CLOCK_REALTIME.*\[check: realtime:/);
    expect(header.sampler).toMatchObject({ partial: false, tailCovered: true, gpmStatus: 'sampling' });
    expect(header.nominalPeriodMs).toBeCloseTo(50, 0);
    const util = lines.filter((l) => l.kind === 'util');
    expect(util.length).toBe(r.count);
    expect(util.length).toBeGreaterThan(10);
    for (const u of util) {
      expect(u.tS).toBeGreaterThan(t0 - 0.1);
      expect(u.tS).toBeLessThan(t1 + 0.1);
    }
    // The level before start (issue #23): the driver's newest buffered sample at start is kept, so a window
    // opening right after start has the sample before the period it cuts.
    const first = util.reduce((a, b) => (b.tS < a.tS ? b : a));
    expect(first.tS).toBeLessThanOrEqual(r.startS);
    expect(first.tS).toBeGreaterThan(r.startS - 0.06);
    // The tail wait: a driver sample wholly past the stop instant (its period starts at or after it) is in the
    // file, so the period the stop cuts is split at the level after it.
    const last = util.reduce((a, b) => (b.tS > a.tS ? b : a));
    expect(last.kind === 'util' && last.tS - (last.periodS ?? 0)).toBeGreaterThanOrEqual(r.stopS - 1e-6);
    const busy = busyFromSamples(util, { startS: r.startS + 0.1, endS: r.stopS - 0.1 });
    expect(busy.timeWeighted).toMatchObject({ status: 'measured', value: 40 });
    const gpm = lines.filter((l) => l.kind === 'gpm');
    expect(gpm.length).toBeGreaterThan(3);
    expect(gpm[0]).toMatchObject({ smUtilPct: 10, smOccupancyPct: 5, dramBwUtilPct: null }); // unsupported → null, not 0
    expect(r.errors.join('\n')).toContain('GPM DRAM_BW_UTIL: NVML_ERROR_NOT_SUPPORTED');
    const clocks = lines.filter((l) => l.kind === 'clock');
    expect(clocks[0]).toMatchObject({ smMHz: 1755, memMHz: 3201, eventReasons: ['SwPowerCap'] });
    const procs = lines.filter((l) => l.kind === 'procs');
    expect(procs[0]).toMatchObject({ pids: [process.pid] });
    expect(r.samplerCpuS).toBeGreaterThan(0);
  });

  it('drains at half the span the driver buffers; a buffer that wrapped between drains leaves its gap uncovered', async () => {
    // The stand-in buffers 5 s (100 samples, 4.95 s from first to last): the cadence chosen is half that, stated.
    const auto = join(dir, 'auto.jsonl');
    const a = await openBusySampler({ samplesPath: auto, periodMs: 50 });
    await sleep(300);
    await a.stop();
    const ah = readSamples(auto)[0];
    expect(ah).toMatchObject({ kind: 'header', sampler: { utilEveryS: expect.closeTo(2.475, 6), utilGaps: 0, driverBuffer: { samples: 100, spanS: expect.closeTo(4.95, 6) } } });
    // A 200 ms buffer drained every 1 s (asked for) wraps: the samples after each gap cover one period, not the gap.
    process.env.FAKE_NVML_BUFFER_MS = '200';
    const samplesPath = join(dir, 'wrap.jsonl');
    const s = await openBusySampler({ samplesPath, periodMs: 50, utilEveryMs: 1000 });
    await sleep(2300);
    const r = await s.stop();
    const lines = readSamples(samplesPath);
    const header = lines[0];
    expect(header?.kind === 'header' && Number(header.sampler?.['utilGaps'])).toBeGreaterThanOrEqual(2);
    const util = lines.filter((l) => l.kind === 'util');
    for (const u of util) expect(u.kind === 'util' && u.periodS).toBeLessThan(0.06);
    const busy = busyFromSamples(util, { startS: r.startS, endS: r.stopS }).timeWeighted;
    expect(busy.status === 'measured' && Number(busy.terms.coverage?.value)).toBeLessThan(0.6);
  });

  it('the tail waits past the sample covering the stop instant for the one after it, even when samples come late', async () => {
    // 400 ms driver periods published 300 ms late, stopped 50–100 ms after a period boundary: the sample covering
    // the stop is visible ~0.65 s after it, the one after it ~1.05 s after — past the tail's first look (0.83 s).
    process.env.FAKE_NVML_PERIOD_MS = '400';
    process.env.FAKE_NVML_LAG_MS = '300';
    const samplesPath = join(dir, 'late.jsonl');
    const s = await openBusySampler({ samplesPath, periodMs: 50 });
    await sleep(200);
    while ((Date.now() / 1000) % 0.4 < 0.05 || (Date.now() / 1000) % 0.4 > 0.1) await sleep(5);
    const r = await s.stop();
    const lines = readSamples(samplesPath);
    expect(lines[0]).toMatchObject({ kind: 'header', sampler: { tailCovered: true } });
    const util = lines.filter((l) => l.kind === 'util');
    const last = util.reduce((a, b) => (b.tS > a.tS ? b : a));
    expect(last.kind === 'util' && last.tS - (last.periodS ?? 0)).toBeGreaterThanOrEqual(r.stopS - 1e-6);
  });

  it('NVML failing mid-window keeps the samples so far and marks the result partial', async () => {
    const samplesPath = join(dir, 'fail.jsonl');
    process.env.FAKE_NVML_FAIL_AT_MONO_S = String(monoS() + 0.6);
    const s = await openBusySampler({ samplesPath, periodMs: 50, utilEveryMs: 50 });
    await sleep(1000);
    const r = await s.stop();
    expect(r.partial).toBe(true);
    expect(r.errors.join('\n')).toContain('NVML_ERROR_GPU_IS_LOST');
    const lines = readSamples(samplesPath);
    const header = lines[0];
    expect(header).toMatchObject({ kind: 'header', sampler: { partial: true } });
    const util = lines.filter((l) => l.kind === 'util');
    expect(util.length).toBeGreaterThan(5); // kept
    expect(lines.some((l) => l.kind === 'error' && l.message.includes('GPU is lost'))).toBe(true);
    // Coverage of a window running past the failure says how much was seen.
    const busy = busyFromSamples(util, { startS: r.startS, endS: r.stopS });
    expect(busy.timeWeighted.status).toBe('measured');
    if (busy.timeWeighted.status === 'measured') expect(Number(busy.timeWeighted.terms.coverage?.value)).toBeLessThan(0.9);
  });

  it('driver samples alone failing mid-window also end the window as partial (other queries still fine)', async () => {
    const samplesPath = join(dir, 'fail-samples.jsonl');
    process.env.FAKE_NVML_SAMPLES_FAIL_AT_MONO_S = String(monoS() + 0.5);
    const s = await openBusySampler({ samplesPath, periodMs: 50, utilEveryMs: 50 });
    await sleep(900);
    const r = await s.stop();
    expect(r.partial).toBe(true);
    expect(r.errors.join('\n')).toContain('utilization samples: NVML_ERROR_UNKNOWN (999)');
    expect(readSamples(samplesPath).filter((l) => l.kind === 'util').length).toBeGreaterThan(3);
  });

  it('MIG enabled: utilization samples and GPM are named unsupported, and the file has no util line (NO_SAMPLES, not 0%)', async () => {
    process.env.FAKE_NVML_MIG = '1';
    const samplesPath = join(dir, 'mig.jsonl');
    const s = await openBusySampler({ samplesPath, periodMs: 50, utilEveryMs: 50 });
    await sleep(200);
    const r = await s.stop();
    expect(r.count).toBe(0);
    expect(r.errors.join('\n')).toMatch(/utilization samples unsupported: .*NVML_ERROR_NOT_SUPPORTED/);
    expect(r.errors.join('\n')).toMatch(/GPM unsupported: nvmlGpmSampleGet: NVML_ERROR_NOT_SUPPORTED/);
    const util = readSamples(samplesPath).filter((l) => l.kind === 'util');
    expect(busyFromSamples(util, { startS: r.startS, endS: r.stopS }).timeWeighted).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES' });
  });

  it('more than one GPU: the device is chosen explicitly or refused', async () => {
    process.env.FAKE_NVML_DEVICES = '2';
    await expect(openBusySampler({ samplesPath: join(dir, 'two.jsonl') })).rejects.toMatchObject({ code: 'AMBIGUOUS_DEVICE' });
    await expect(detectSilicon()).rejects.toMatchObject({ code: 'AMBIGUOUS_DEVICE' });
    await expect(openBusySampler({ samplesPath: join(dir, 'nine.jsonl'), deviceIndex: 9 })).rejects.toMatchObject({ code: 'NO_SUCH_DEVICE' });
    const s = await openBusySampler({ samplesPath: join(dir, 'one.jsonl'), deviceIndex: 1, periodMs: 50 });
    const r = await s.stop();
    expect(r.backend).toBe('nvml');
    const header = readSamples(join(dir, 'one.jsonl'))[0];
    expect(header).toMatchObject({ device: { index: 1, uuid: 'GPU-fake-0002' } });
  });

  it('silicon and compute processes come from NVML', async () => {
    const s = await detectSilicon();
    expect(s).toMatchObject({ kind: 'gpu', source: 'nvml', gpuName: 'Fake H200', computeCapability: '9.0', smArch: 'sm_90', archTarget: '90a', driverVersion: '999.0.fake', cudaDriverVersion: '13.0', maxSmClockMHz: 1980 });
    expect(await computeProcesses(0)).toEqual({ status: 'measured', backend: 'nvml', processes: [{ pid: process.pid, usedMemoryBytes: 1048576 }] });
  });
});

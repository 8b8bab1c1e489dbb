// Pure pieces of the sampler: clock conversion, reason names, device choice, nvidia-smi parsing, arch names.
import { describe, expect, it } from 'vitest';
import { convertUtil, describeConversion, driverClockOf, eventReasonNames, medianPeriodMs } from '../../src/sampler/convert.js';
import { chooseDevice } from '../../src/sampler/devices.js';
import { parseSmiGpus, parseSmiProcesses, parseSmiRow, parseSmiTimestamp, parseSmiCudaVersion } from '../../src/sampler/smiParse.js';
import { archOf, cpuModel } from '../../src/silicon/detect.js';
import { NhGateError } from '../../src/errors.js';

describe('driver sample clock conversion', () => {
  it('maps CLOCK_REALTIME µs onto monotonic seconds by subtracting the measured offset, and states the period', () => {
    const line = convertUtil({ tsUs: 1_796_000_010_500_000, prevTsUs: 1_796_000_010_300_000, pct: 37 }, 'realtime', 1_796_000_000);
    expect(line).toEqual({ kind: 'util', tS: expect.closeTo(10.5, 9), gpuPct: 37, periodS: expect.closeTo(0.2, 9) });
  });
  it('leaves monotonic timestamps unshifted and omits an unknown period', () => {
    expect(convertUtil({ tsUs: 12_000_000, prevTsUs: null, pct: 5 }, 'monotonic', 1e9)).toEqual({ kind: 'util', tS: 12, gpuPct: 5 });
  });
  it('drops values that are not a percentage instead of writing them', () => {
    expect(convertUtil({ tsUs: 1, prevTsUs: null, pct: null }, 'realtime', 0)).toBeNull();
    expect(convertUtil({ tsUs: 1, prevTsUs: null, pct: 101 }, 'realtime', 0)).toBeNull();
  });
  it('reads the clock check, defaulting to realtime (NVML documents CPU timestamps)', () => {
    expect(driverClockOf('monotonic: newest …')).toBe('monotonic');
    expect(driverClockOf('realtime: newest …')).toBe('realtime');
    expect(driverClockOf('unchecked: no sample')).toBe('realtime');
  });
  it('states the offset and the check in the header sentence', () => {
    const s = describeConversion('realtime: newest buffered driver sample was 0.1 s before start', 123.4567891, 6e-8);
    expect(s).toContain('− 123.456789 s');
    expect(s).toContain('0.060 µs');
    expect(s).toContain('[check: realtime:');
  });
  it('takes the median driver period from util lines', () => {
    expect(medianPeriodMs([{ kind: 'util', tS: 1, gpuPct: 0, periodS: 0.2 }, { kind: 'util', tS: 2, gpuPct: 0, periodS: 0.1 }, { kind: 'util', tS: 3, gpuPct: 0, periodS: 0.3 }])).toBeCloseTo(200, 6);
    expect(medianPeriodMs([{ kind: 'util', tS: 1, gpuPct: 0 }])).toBeUndefined();
  });
});

describe('clock-event reasons', () => {
  it('names every set bit and keeps unknown bits as hex', () => {
    expect(eventReasonNames(0x1 | 0x4 | 0x40)).toEqual(['GpuIdle', 'SwPowerCap', 'HwThermalSlowdown']);
    expect(eventReasonNames(0x10000 | 0x8)).toEqual(['HwSlowdown', '0x10000']);
    expect(eventReasonNames(null)).toEqual([]);
  });
});

describe('device choice', () => {
  it('takes the only GPU, or none when there is none', () => {
    expect(chooseDevice(1, undefined, 'NVML')).toBe(0);
    expect(chooseDevice(0, undefined, 'NVML')).toBeNull();
  });
  it('refuses to guess among several GPUs', () => {
    expect(() => chooseDevice(2, undefined, 'NVML')).toThrow(expect.objectContaining({ code: 'AMBIGUOUS_DEVICE' }));
    expect(chooseDevice(2, 1, 'NVML')).toBe(1);
  });
  it('refuses an index that is not there, naming the count', () => {
    try {
      chooseDevice(2, 2, 'NVML');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NhGateError);
      expect((e as NhGateError).code).toBe('NO_SUCH_DEVICE');
      expect((e as NhGateError).message).toContain('sees 2 GPU(s)');
      expect((e as NhGateError).exitClass).toBe('usage');
    }
    expect(() => chooseDevice(1, -1, 'NVML')).toThrow(/does not exist/);
  });
});

describe('nvidia-smi parsing', () => {
  it('parses local-time timestamps with milliseconds', () => {
    expect(parseSmiTimestamp('2026/11/30 04:20:01.123')).toBe(new Date(2026, 10, 30, 4, 20, 1).getTime() + 123);
    expect(parseSmiTimestamp('Tue Nov 30')).toBeNull();
  });
  it('parses sampling rows and names unreadable fields null, never 0', () => {
    expect(parseSmiRow('2026/11/30 04:20:01.500, 87, 1980, 3201')).toEqual({ epochMs: new Date(2026, 10, 30, 4, 20, 1).getTime() + 500, utilPct: 87, smMHz: 1980, memMHz: 3201 });
    expect(parseSmiRow('2026/11/30 04:20:01.500, [N/A], [Not Supported], 3201')).toMatchObject({ utilPct: null, smMHz: null });
    expect(parseSmiRow('Failed to initialize NVML: Driver/library version mismatch')).toBeNull();
  });
  it('parses the GPU list, the CUDA banner and compute apps', () => {
    expect(parseSmiGpus('0, NVIDIA H200, GPU-abc, 9.0, 580.159.04, 1980\nNo devices were found\n')).toEqual([
      { index: 0, name: 'NVIDIA H200', uuid: 'GPU-abc', computeCapability: '9.0', driverVersion: '580.159.04', maxSmClockMHz: 1980 },
    ]);
    expect(parseSmiCudaVersion('| Driver Version: 580.159.04     CUDA Version: 13.0 |')).toBe('13.0');
    expect(parseSmiProcesses('4242, 100\n[N/A]\n')).toEqual([{ pid: 4242, usedMemoryBytes: 100 * 1024 * 1024 }]);
  });
});

describe('silicon names', () => {
  it('derives sm_XY and the arch-specific target (SPEC §2: 90a, 121a; Thor 110)', () => {
    expect(archOf('9.0')).toEqual({ smArch: 'sm_90', archTarget: '90a' });
    expect(archOf('12.1')).toEqual({ smArch: 'sm_121', archTarget: '121a' });
    expect(archOf('11.0')).toEqual({ smArch: 'sm_110', archTarget: '110' });
    expect(archOf('8.6')).toEqual({ smArch: 'sm_86', archTarget: '86' });
    expect(archOf(null)).toEqual({ smArch: null, archTarget: null });
  });
  it('reads the CPU model from cpuinfo text', () => {
    expect(cpuModel('processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\n')).toBe('Intel(R) Xeon(R) Processor');
  });
});

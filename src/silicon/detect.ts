// Reads the silicon a number is taken on: NVML addon → nvidia-smi → cpu-only (with the CPU model).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import type { Silicon } from './types.js';
import type { NativeDevice, NativeProbe } from '../sampler/binding.js';
import type { SmiGpu } from '../sampler/smiParse.js';
import { loadAddon } from '../sampler/load.js';
import { chooseDevice } from '../sampler/devices.js';
import { smiCudaVersion, smiGpus } from '../sampler/smiQuery.js';

// The host CPU model ("model name" in /proc/cpuinfo), part of every silicon key.
export function cpuModel(cpuinfo?: string): string {
  let text = cpuinfo;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/cpuinfo', 'utf8');
    } catch {
      text = '';
    }
  }
  const m = /^(?:model name|Model|Hardware)\s*:\s*(.+)$/m.exec(text);
  return m?.[1]?.trim() || cpus()[0]?.model?.trim() || 'unknown CPU';
}

// cc → (sm_XY, arch-specific target): 9.0 → sm_90/90a, 12.1 → sm_121/121a; Thor 11.0 → 110 (SPEC §2);
// before Hopper there is no arch-specific variant, so the target is the plain number.
export function archOf(computeCapability: string | null): { smArch: string | null; archTarget: string | null } {
  const m = computeCapability === null ? null : /^(\d+)\.(\d)$/.exec(computeCapability);
  if (!m) return { smArch: null, archTarget: null };
  const major = Number(m[1]);
  const xy = `${major}${m[2]}`;
  const plain = major < 9 || xy === '110';
  return { smArch: `sm_${xy}`, archTarget: plain ? xy : `${xy}a` };
}

// Silicon from an NVML device record (pure).
export function siliconFromNvml(d: NativeDevice, probe: NativeProbe, cpu: string): Silicon {
  const cc = d.ccMajor === null || d.ccMinor === null ? null : `${d.ccMajor}.${d.ccMinor}`;
  return {
    kind: 'gpu',
    gpuName: d.name,
    uuid: d.uuid,
    computeCapability: cc,
    ...archOf(cc),
    driverVersion: probe.driverVersion ?? null,
    cudaDriverVersion: probe.cudaDriverVersion ?? null,
    maxSmClockMHz: d.maxSmClockMHz,
    persistenceMode: d.persistenceMode,
    appSmClockMHz: d.appSmClockMHz ?? null,
    appMemClockMHz: d.appMemClockMHz ?? null,
    cpuModel: cpu,
    source: 'nvml',
  };
}

// Silicon from an nvidia-smi row (pure).
export function siliconFromSmi(g: SmiGpu, cudaDriverVersion: string | null, cpu: string): Silicon {
  return {
    kind: 'gpu',
    gpuName: g.name,
    uuid: g.uuid,
    computeCapability: g.computeCapability,
    ...archOf(g.computeCapability),
    driverVersion: g.driverVersion,
    cudaDriverVersion,
    maxSmClockMHz: g.maxSmClockMHz,
    cpuModel: cpu,
    source: 'nvidia-smi',
  };
}

// A host with no GPU reachable: the CPU is the silicon.
export function cpuOnlySilicon(cpu: string): Silicon {
  return {
    kind: 'cpu-only', gpuName: null, uuid: null, computeCapability: null, smArch: null, archTarget: null,
    driverVersion: null, cudaDriverVersion: null, maxSmClockMHz: null, cpuModel: cpu, source: 'none',
  };
}

// The silicon of this host for one GPU; AMBIGUOUS_DEVICE when several are visible and none is chosen.
export async function detectSilicon(opts: { deviceIndex?: number } = {}): Promise<Silicon> {
  const cpu = cpuModel();
  const addon = loadAddon();
  if (addon.ok) {
    const probe = addon.binding.probe();
    if (probe.available) {
      const index = chooseDevice(probe.devices.length, opts.deviceIndex, 'NVML');
      const dev = index === null ? undefined : probe.devices[index];
      if (dev) return siliconFromNvml(dev, probe, cpu);
    }
  }
  const gpus = await smiGpus();
  if (gpus.ok) {
    const index = chooseDevice(gpus.value.length, opts.deviceIndex, 'nvidia-smi');
    const g = index === null ? undefined : gpus.value.find((x) => x.index === index);
    if (g) return siliconFromSmi(g, await smiCudaVersion(), cpu);
  }
  return cpuOnlySilicon(cpu);
}

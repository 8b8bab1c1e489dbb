// Public entry of the sampler (issue #5): the backend chain NVML addon → nvidia-smi → none.
import { NhGateError } from '../errors.js';
import type { BusySampler, BusySamplerOptions, BusySamplerResult, ComputeProcessesResult, SamplerBackend } from './types.js';
import { loadAddon, unavailableLine } from './load.js';
import { chooseDevice } from './devices.js';
import { openNvmlSampler } from './nvml.js';
import { openSmiSampler } from './smi.js';
import { smiGpus, smiProcesses } from './smiQuery.js';

export type { BusySampler, BusySamplerOptions, BusySamplerResult, ComputeProcess, ComputeProcessesResult, SamplerBackend } from './types.js';

const ALL: SamplerBackend[] = ['nvml', 'nvidia-smi', 'none'];

// "CODE: message" of an addon error (they carry a stable code).
export function nativeErrorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

// The 'none' backend: nothing is measured, and the result says why (NO_SAMPLES downstream, never 0%).
function noneSampler(reason: string): BusySampler {
  const startS = Number(process.hrtime.bigint()) / 1e9;
  const result = (): BusySamplerResult => ({
    backend: 'none', samplesPath: null, count: 0, errors: [reason], partial: false, startS, stopS: Number(process.hrtime.bigint()) / 1e9, samplerCpuS: null,
  });
  let done: BusySamplerResult | null = null;
  return { backend: 'none', reason, deviceIndex: null, samplesPath: '', stop: async () => (done ??= result()) };
}

// Starts the best available busy instrument, writing opts.samplesPath incrementally. With more than one
// GPU visible the device must be chosen (AMBIGUOUS_DEVICE otherwise); a named index that is not there is NO_SUCH_DEVICE.
export async function openBusySampler(opts: BusySamplerOptions): Promise<BusySampler> {
  const allow = opts.allowBackends ?? ALL;
  const reasons: string[] = [];
  const because = (): string | undefined => (reasons.length ? reasons.join('; ') : undefined);
  if (allow.includes('nvml')) {
    const addon = loadAddon();
    if (!addon.ok) reasons.push(unavailableLine(addon.reason));
    else {
      const probe = addon.binding.probe();
      if (!probe.available) reasons.push(`NVML unavailable: ${probe.code ?? ''} ${probe.message ?? ''}`.trim());
      else {
        const index = chooseDevice(probe.devices.length, opts.deviceIndex, `NVML (${probe.library ?? 'libnvidia-ml'})`);
        if (index === null) reasons.push('NVML sees no GPU');
        else {
          try {
            return openNvmlSampler(addon.binding, { deviceIndex: index, device: probe.devices[index], periodMs: opts.periodMs ?? 250, ...(opts.utilEveryMs !== undefined ? { utilEveryMs: opts.utilEveryMs } : {}), ...(opts.gpmIntervalMs !== undefined ? { gpmIntervalMs: opts.gpmIntervalMs } : {}), samplesPath: opts.samplesPath }, because());
          } catch (err) {
            reasons.push(`NVML sampler failed to start: ${nativeErrorText(err)}`);
          }
        }
      }
    }
  }
  if (allow.includes('nvidia-smi')) {
    const gpus = await smiGpus();
    if (!gpus.ok) reasons.push(gpus.reason);
    else {
      const index = chooseDevice(gpus.value.length, opts.deviceIndex, 'nvidia-smi');
      if (index === null) reasons.push('nvidia-smi sees no GPU');
      else return openSmiSampler({ deviceIndex: index, device: gpus.value.find((g) => g.index === index), periodMs: opts.periodMs ?? 100, samplesPath: opts.samplesPath }, because());
    }
  }
  if (allow.includes('none')) return noneSampler(because() ?? 'no sampler backend allowed');
  throw new NhGateError(
    'SAMPLER_UNAVAILABLE',
    `no allowed busy sampler (${allow.join(', ')}) is available: ${because() ?? 'none tried'}`,
    "build the addon (node scripts/build-addon.mjs) on a host with the NVIDIA driver, or allow 'none' to report NOT MEASURED",
  );
}

// Compute processes on one GPU (the contention check): addon → nvidia-smi → 'unavailable' with the reasons.
export async function computeProcesses(deviceIndex: number): Promise<ComputeProcessesResult> {
  const reasons: string[] = [];
  const addon = loadAddon();
  if (addon.ok) {
    try {
      const r = addon.binding.computeProcesses(deviceIndex);
      return { status: 'measured', backend: 'nvml', processes: r.processes };
    } catch (err) {
      reasons.push(nativeErrorText(err));
    }
  } else reasons.push(unavailableLine(addon.reason));
  const smi = await smiProcesses(deviceIndex);
  if (smi.ok) return { status: 'measured', backend: 'nvidia-smi', processes: smi.value };
  reasons.push(smi.reason);
  return { status: 'unavailable', reason: reasons.join('; ') };
}

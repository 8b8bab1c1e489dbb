// What `nh-gate probe` reports: silicon, every device with its extras, and which busy backend would be
// used and why the better ones would not. Gathering is an effect; rendering is pure.
import type { Silicon } from './types.js';
import { archOf, cpuModel, detectSilicon } from './detect.js';
import { NhGateError } from '../errors.js';
import type { NativeDevice } from '../sampler/binding.js';
import { loadAddon, unavailableLine } from '../sampler/load.js';
import { smiGpus } from '../sampler/smiQuery.js';
import type { SamplerBackend } from '../sampler/types.js';

// One device as probe prints it: NVML's fields with the compute capability spelled as the arch names users type.
export interface ProbeDevice extends Omit<NativeDevice, 'ccMajor' | 'ccMinor'> {
  computeCapability: string | null;
  smArch: string | null;
  archTarget: string | null;
}

export interface ProbeReport {
  cpuModel: string;
  silicon: Silicon | null;
  siliconError: string | null;
  addon: { loaded: boolean; path: string; reason: string | null };
  nvml: { available: boolean; library: string | null; reason: string | null; driverVersion: string | null; cudaDriverVersion: string | null; processesSymbol: string | null; eventReasonsSymbol: string | null };
  devices: ProbeDevice[];
  nvidiaSmi: { available: boolean; gpus: number; reason: string | null };
  busySampler: { backend: SamplerBackend; reason: string | null };
}

function toProbeDevice(d: NativeDevice): ProbeDevice {
  const cc = d.ccMajor === null || d.ccMinor === null ? null : `${d.ccMajor}.${d.ccMinor}`;
  return {
    index: d.index, name: d.name, uuid: d.uuid, computeCapability: cc, ...archOf(cc), maxSmClockMHz: d.maxSmClockMHz,
    smClockMHz: d.smClockMHz, persistenceMode: d.persistenceMode, appSmClockMHz: d.appSmClockMHz ?? null, appMemClockMHz: d.appMemClockMHz ?? null, mig: d.mig, gpmSupported: d.gpmSupported, fieldErrors: d.fieldErrors,
  };
}

// Gathers the report; a multi-GPU host without a chosen device reports the silicon error instead of failing.
export async function gatherProbe(deviceIndex?: number): Promise<ProbeReport> {
  const addon = loadAddon();
  const probe = addon.ok ? addon.binding.probe() : null;
  const smi = await smiGpus();
  let silicon: Silicon | null = null;
  let siliconError: string | null = null;
  try {
    silicon = await detectSilicon(deviceIndex === undefined ? {} : { deviceIndex });
  } catch (err) {
    if (!(err instanceof NhGateError) || err.code !== 'AMBIGUOUS_DEVICE') throw err;
    siliconError = `${err.code}: ${err.message}`;
  }
  const reasons: string[] = [];
  let backend: SamplerBackend = 'none';
  if (!addon.ok) reasons.push(unavailableLine(addon.reason));
  else if (!probe?.available) reasons.push(`NVML unavailable: ${probe?.message ?? ''}`);
  else if (probe.devices.length === 0) reasons.push('NVML sees no GPU');
  else backend = 'nvml';
  if (backend === 'none') {
    if (!smi.ok) reasons.push(smi.reason);
    else if (smi.value.length === 0) reasons.push('nvidia-smi sees no GPU');
    else backend = 'nvidia-smi';
  }
  return {
    cpuModel: cpuModel(),
    silicon,
    siliconError,
    addon: { loaded: addon.ok, path: addon.path, reason: addon.ok ? null : addon.reason },
    nvml: {
      available: probe?.available ?? false,
      library: probe?.library ?? null,
      reason: probe === null ? 'addon not loaded' : probe.available ? null : `${probe.code ?? ''}: ${probe.message ?? ''}`,
      driverVersion: probe?.driverVersion ?? null,
      cudaDriverVersion: probe?.cudaDriverVersion ?? null,
      processesSymbol: probe?.processesSymbol ?? null,
      eventReasonsSymbol: probe?.eventReasonsSymbol ?? null,
    },
    devices: (probe?.devices ?? []).map(toProbeDevice),
    nvidiaSmi: { available: smi.ok, gpus: smi.ok ? smi.value.length : 0, reason: smi.ok ? null : smi.reason },
    busySampler: { backend, reason: reasons.length ? reasons.join('; ') : null },
  };
}

const onOff = (b: boolean | null | undefined): string => (b === null || b === undefined ? 'unknown' : b ? 'on' : 'off');

// Human lines for the report (stdout of `nh-gate probe` without --json).
export function renderProbe(r: ProbeReport): string {
  const lines: string[] = [];
  const s = r.silicon;
  if (s === null) lines.push(`silicon      REFUSED: ${r.siliconError ?? 'unknown'}`);
  else if (s.kind === 'cpu-only') lines.push(`silicon      cpu-only: ${s.cpuModel} (no GPU reachable)`);
  else {
    lines.push(
      `silicon      ${s.gpuName ?? '?'} ${s.uuid ?? ''} cc ${s.computeCapability ?? '?'} ${s.smArch ?? '?'} / ${s.archTarget ?? '?'}, ` +
        `driver ${s.driverVersion ?? '?'}, CUDA driver ${s.cudaDriverVersion ?? '?'}, max SM ${s.maxSmClockMHz ?? '?'} MHz, CPU ${s.cpuModel} [from ${s.source}]`,
    );
  }
  for (const d of r.devices) {
    const errs = Object.entries(d.fieldErrors).map(([k, v]) => `${k}: ${v}`);
    lines.push(
      `device ${d.index}     ${d.name ?? '?'} persistence ${onOff(d.persistenceMode)}, MIG ${d.mig === null ? 'n/a' : onOff(d.mig.current)}, ` +
        `SM clock ${d.smClockMHz ?? '?'}/${d.maxSmClockMHz ?? '?'} MHz, application clocks SM ${d.appSmClockMHz ?? '?'} / memory ${d.appMemClockMHz ?? '?'} MHz, GPM ${d.gpmSupported ? 'yes' : 'no'}` + (errs.length ? ` (unread: ${errs.join('; ')})` : ''),
    );
  }
  lines.push(r.addon.loaded ? `addon        loaded (${r.addon.path})` : `addon        ${unavailableLine(r.addon.reason ?? '')}`);
  lines.push(r.nvml.available ? `NVML         available (${r.nvml.library ?? '?'}; processes via ${r.nvml.processesSymbol ?? 'none'})` : `NVML         unavailable: ${r.nvml.reason ?? ''}`);
  lines.push(r.nvidiaSmi.available ? `nvidia-smi   available (${r.nvidiaSmi.gpus} GPU(s))` : `nvidia-smi   unavailable: ${r.nvidiaSmi.reason ?? ''}`);
  const why = r.busySampler.reason ? ` (because ${r.busySampler.reason})` : '';
  lines.push(
    r.busySampler.backend === 'none'
      ? `busy sampler none: busy figures will be NOT MEASURED${why}`
      : `busy sampler ${r.busySampler.backend}${why}`,
  );
  return lines.join('\n') + '\n';
}

// The NVML backend: drives the addon's sampling thread and streams its records into the samples file.
import type { SampleLine } from '../config/samples.js';
import type { NativeBinding, NativeDevice, NativeRecords } from './binding.js';
import type { BusySampler, BusySamplerResult } from './types.js';
import { describeConversion, driverClockOf, medianPeriodMs, recordsToLines, samplerFacts } from './convert.js';
import { SamplesWriter } from './writer.js';

export interface NvmlSamplerOptions {
  deviceIndex: number;
  device: NativeDevice | undefined;
  periodMs: number;
  utilEveryMs?: number;
  gpmIntervalMs?: number;
  samplesPath: string;
  // How often the JS side drains the thread into the file.
  flushMs?: number;
}

function deviceRecord(d: NativeDevice | undefined, index: number): Record<string, unknown> {
  if (!d) return { index };
  return { index, name: d.name, uuid: d.uuid, computeCapability: d.ccMajor === null ? null : `${d.ccMajor}.${d.ccMinor}`, mig: d.mig };
}

// Starts the native thread (throws the addon's coded errors) and returns a running BusySampler.
export function openNvmlSampler(binding: NativeBinding, opts: NvmlSamplerOptions, reason?: string): BusySampler {
  const native = new binding.Sampler({ deviceIndex: opts.deviceIndex, periodMs: opts.periodMs, ...(opts.utilEveryMs !== undefined ? { utilEveryMs: opts.utilEveryMs } : {}), ...(opts.gpmIntervalMs !== undefined ? { gpmIntervalMs: opts.gpmIntervalMs } : {}) });
  native.start();
  const info = native.info();
  const clock = driverClockOf(info.clockCheck);
  const offsetS = info.startOffset.offsetS;
  const base = {
    kind: 'header' as const,
    schemaVersion: 1 as const,
    source: 'nvml' as const,
    clock: 'monotonic_s' as const,
    clockConversion: describeConversion(info.clockCheck, offsetS, info.startOffset.bracketS),
    device: deviceRecord(opts.device, opts.deviceIndex),
  };
  const writer = new SamplesWriter(opts.samplesPath, {
    ...base,
    sampler: { backend: 'nvml', provisional: true, utilStatus: info.utilStatus, gpmStatus: info.gpmStatus, clockCheck: info.clockCheck },
  });
  const utilLines: SampleLine[] = [];
  const polled = { count: 0, sumPct: 0 };
  const errors: string[] = [];
  if (info.utilStatus !== 'sampling') errors.push(`utilization samples ${info.utilStatus}`);
  if (info.gpmStatus !== 'sampling') errors.push(`GPM ${info.gpmStatus}`);
  const take = (r: NativeRecords): void => {
    const lines = recordsToLines(r, clock, offsetS);
    for (const l of lines) if (l.kind === 'util') utilLines.push(l);
    for (const p of r.polled) {
      polled.count += 1;
      polled.sumPct += p.gpuPct;
    }
    for (const e of r.errors) errors.push(e.message);
    writer.append(lines);
  };
  const timer = setInterval(() => take(native.drain()), opts.flushMs ?? 1000);
  timer.unref();
  let stopped: Promise<BusySamplerResult> | null = null;
  const stop = async (): Promise<BusySamplerResult> => {
    clearInterval(timer);
    const last = await native.stop();
    take(last);
    const meta = last.meta;
    const nominalPeriodMs = medianPeriodMs(utilLines);
    writer.finish({
      ...base,
      ...(nominalPeriodMs !== undefined ? { nominalPeriodMs } : {}),
      sampler: samplerFacts(meta, polled),
    });
    if (writer.failure) errors.push(writer.failure);
    return {
      backend: 'nvml',
      samplesPath: opts.samplesPath,
      count: writer.count,
      errors,
      partial: meta.failed || writer.failure !== null,
      startS: meta.startMonoS,
      stopS: meta.stopMonoS,
      samplerCpuS: meta.threadCpuS,
    };
  };
  return {
    backend: 'nvml',
    ...(reason !== undefined ? { reason } : {}),
    deviceIndex: opts.deviceIndex,
    samplesPath: opts.samplesPath,
    // stop() twice answers the same result instead of a native SAMPLER_ALREADY_STOPPED.
    stop: () => (stopped ??= stop()),
  };
}

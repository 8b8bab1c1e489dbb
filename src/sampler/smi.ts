// The nvidia-smi backend: a `-lms` loop whose timestamped rows are mapped onto the monotonic clock
// and labelled as such. Coarser than NVML (it repeats the driver's latest sample every row), but timed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { SampleLine } from '../config/samples.js';
import type { BusySampler, BusySamplerResult } from './types.js';
import { parseSmiRow, type SmiGpu } from './smiParse.js';
import { SamplesWriter } from './writer.js';

// CLOCK_REALTIME − CLOCK_MONOTONIC from JS clocks (Date.now has ms resolution, so ±0.5 ms).
export function jsClockOffsetS(): { offsetS: number; bracketS: number } {
  let best = { offsetS: 0, bracketS: Infinity };
  for (let i = 0; i < 5; i++) {
    const h1 = process.hrtime.bigint();
    const d = Date.now();
    const h2 = process.hrtime.bigint();
    const bracketS = Number(h2 - h1) / 1e9;
    if (bracketS < best.bracketS) best = { offsetS: d / 1000 - Number(h1 + h2) / 2e9, bracketS };
  }
  return best;
}

// CPU seconds a child has used so far (utime + stime from /proc, USER_HZ = 100 on Linux); null off Linux.
export function procCpuS(pid: number): number | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

export interface SmiSamplerOptions {
  deviceIndex: number;
  device: SmiGpu | undefined;
  periodMs: number;
  samplesPath: string;
}

// Spawns the nvidia-smi loop and streams its rows into the samples file.
export function openSmiSampler(opts: SmiSamplerOptions, reason?: string): BusySampler {
  const { offsetS, bracketS } = jsClockOffsetS();
  const startS = Number(process.hrtime.bigint()) / 1e9;
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const header = {
    kind: 'header' as const,
    schemaVersion: 1 as const,
    source: 'nvidia-smi' as const,
    clock: 'monotonic_s' as const,
    clockConversion:
      `util tS = nvidia-smi row timestamp (host local time, ms, parsed in ${tz}) as epoch s − ${offsetS.toFixed(6)} s ` +
      `(CLOCK_REALTIME − CLOCK_MONOTONIC at start from Date.now/hrtime, ±${Math.max(0.5, bracketS * 1e3).toFixed(1)} ms); ` +
      "gpuPct is nvidia-smi's utilization.gpu: the driver's latest sample repeated on each row, periodS = row spacing",
    device: { index: opts.deviceIndex, ...(opts.device ? { name: opts.device.name, uuid: opts.device.uuid, computeCapability: opts.device.computeCapability } : {}) },
    nominalPeriodMs: opts.periodMs,
  };
  const writer = new SamplesWriter(opts.samplesPath, { ...header, sampler: { backend: 'nvidia-smi', provisional: true } });
  const args = ['--query-gpu=timestamp,utilization.gpu,clocks.sm,clocks.mem', '--format=csv,noheader,nounits', `-lms`, String(opts.periodMs), '-i', String(opts.deviceIndex)];
  const child = spawn('nvidia-smi', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const errors: string[] = [];
  let stderr = '';
  let prevTS: number | null = null;
  let lastTS = -Infinity;
  let exitedEarly = false;
  let stopping = false;
  let waiter: (() => void) | null = null;
  let stopS = 0;
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  child.on('error', (e) => errors.push(`nvidia-smi: ${e.message}`));
  const exited = new Promise<void>((resolve) => child.on('close', (code, signal) => {
    if (!stopping) {
      exitedEarly = true;
      const msg = `nvidia-smi exited mid-window (code ${String(code)}, signal ${String(signal)}): ${stderr.trim().split('\n')[0] ?? ''}`;
      errors.push(msg);
      writer.append([{ kind: 'error', tS: Number(process.hrtime.bigint()) / 1e9, message: msg }]);
    }
    waiter?.();
    resolve();
  }));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const row = parseSmiRow(line);
    if (!row) return;
    const tS = row.epochMs / 1000 - offsetS;
    const lines: SampleLine[] = [];
    if (row.utilPct !== null) {
      lines.push(prevTS !== null && tS > prevTS ? { kind: 'util', tS, gpuPct: row.utilPct, periodS: tS - prevTS } : { kind: 'util', tS, gpuPct: row.utilPct });
    }
    lines.push({ kind: 'clock', tS, smMHz: row.smMHz, memMHz: row.memMHz, eventReasons: [] });
    prevTS = tS;
    lastTS = tS;
    writer.append(lines);
    if (stopping && tS >= stopS) waiter?.();
  });

  let stopped: Promise<BusySamplerResult> | null = null;
  const stop = async (): Promise<BusySamplerResult> => {
    stopS = Number(process.hrtime.bigint()) / 1e9;
    stopping = true;
    // Wait for the row that covers the stop instant (one period, bounded).
    if (!exitedEarly && lastTS < stopS) {
      await new Promise<void>((resolve) => {
        waiter = resolve;
        setTimeout(resolve, opts.periodMs * 3 + 200).unref();
      });
    }
    const cpuS = child.pid !== undefined ? procCpuS(child.pid) : null;
    if (!exitedEarly) child.kill('SIGTERM');
    await exited;
    writer.finish({
      ...header,
      sampler: { backend: 'nvidia-smi', startS, stopS, partial: exitedEarly, samplerCpuS: cpuS, errors, command: ['nvidia-smi', ...args].join(' ') },
    });
    if (writer.failure) errors.push(writer.failure);
    return { backend: 'nvidia-smi', samplesPath: opts.samplesPath, count: writer.count, errors, partial: exitedEarly || writer.failure !== null, startS, stopS, samplerCpuS: cpuS };
  };
  return {
    backend: 'nvidia-smi',
    ...(reason !== undefined ? { reason } : {}),
    deviceIndex: opts.deviceIndex,
    samplesPath: opts.samplesPath,
    stop: () => (stopped ??= stop()),
  };
}

// Pure conversion of the addon's records into samples-file lines (src/config/samples.ts), including the
// one clock conversion: NVML stamps driver samples in µs of CLOCK_REALTIME; the harness clock is CLOCK_MONOTONIC s.
import type { SampleLine } from '../config/samples.js';
import type { NativeMeta, NativeRecords, NativeUtil } from './binding.js';

export type DriverClock = 'realtime' | 'monotonic';

// Which clock the driver's timestamps are on, from the check made at start (unchecked/unknown → realtime, as NVML documents).
export function driverClockOf(clockCheck: string): DriverClock {
  return clockCheck.startsWith('monotonic:') ? 'monotonic' : 'realtime';
}

// Driver sample → util line: tS on the monotonic clock, periodS from the previous driver sample when known.
export function convertUtil(u: NativeUtil, clock: DriverClock, offsetS: number): SampleLine | null {
  if (u.pct === null || !Number.isFinite(u.pct) || u.pct < 0 || u.pct > 100) return null;
  const shift = clock === 'realtime' ? offsetS : 0;
  const tS = u.tsUs / 1e6 - shift;
  const periodS = u.prevTsUs !== null && u.tsUs > u.prevTsUs ? (u.tsUs - u.prevTsUs) / 1e6 : undefined;
  return periodS === undefined ? { kind: 'util', tS, gpuPct: u.pct } : { kind: 'util', tS, gpuPct: u.pct, periodS };
}

// NVML clock-event reason bits (nvmlClocksEventReason*), named so a reader need not decode a mask.
const REASON_BITS: [number, string][] = [
  [0x1, 'GpuIdle'],
  [0x2, 'ApplicationsClocksSetting'],
  [0x4, 'SwPowerCap'],
  [0x8, 'HwSlowdown'],
  [0x10, 'SyncBoost'],
  [0x20, 'SwThermalSlowdown'],
  [0x40, 'HwThermalSlowdown'],
  [0x80, 'HwPowerBrakeSlowdown'],
  [0x100, 'DisplayClockSetting'],
];

// Names of the bits set in a clock-event reason mask; unknown bits are kept as hex, never dropped.
export function eventReasonNames(mask: number | null): string[] {
  if (mask === null) return [];
  const names: string[] = [];
  let rest = mask;
  for (const [bit, name] of REASON_BITS) {
    if (mask & bit) names.push(name);
    rest &= ~bit;
  }
  if (rest !== 0) names.push(`0x${rest.toString(16)}`);
  return names;
}

// One drained batch → lines, in time order per kind (util, gpm, clock, procs, error).
export function recordsToLines(r: NativeRecords, clock: DriverClock, offsetS: number): SampleLine[] {
  const out: SampleLine[] = [];
  for (const u of r.util) {
    const line = convertUtil(u, clock, offsetS);
    if (line) out.push(line);
  }
  for (const g of r.gpm) {
    out.push({ kind: 'gpm', tS: g.tS, intervalS: g.intervalS, smUtilPct: g.smUtilPct, smOccupancyPct: g.smOccupancyPct, dramBwUtilPct: g.dramBwUtilPct });
  }
  for (const c of r.clocks) out.push({ kind: 'clock', tS: c.tS, smMHz: c.smMHz, memMHz: c.memMHz, eventReasons: eventReasonNames(c.reasonsMask) });
  for (const p of r.procs) out.push({ kind: 'procs', tS: p.tS, pids: p.pids });
  for (const e of r.errors) out.push({ kind: 'error', tS: e.tS, message: e.message });
  return out;
}

// The sentence the header states for the conversion (SPEC: stated, never implied).
export function describeConversion(clockCheck: string, startOffsetS: number, bracketS: number): string {
  const clock = driverClockOf(clockCheck);
  if (clock === 'monotonic') {
    return `util tS = NVML sample timestamp (µs) / 1e6, already CLOCK_MONOTONIC [check: ${clockCheck}]; gpm/clock/procs stamped CLOCK_MONOTONIC by the sampler thread`;
  }
  return (
    `util tS = NVML sample timestamp (µs of CLOCK_REALTIME) / 1e6 − ${startOffsetS.toFixed(6)} s ` +
    `(CLOCK_REALTIME − CLOCK_MONOTONIC at start, read within ${(bracketS * 1e6).toFixed(3)} µs) [check: ${clockCheck}]; ` +
    'gpm/clock/procs stamped CLOCK_MONOTONIC by the sampler thread'
  );
}

// Median spacing of the driver's own samples, the header's nominal period for nvml files.
export function medianPeriodMs(util: readonly SampleLine[]): number | undefined {
  const periods = util.flatMap((l) => (l.kind === 'util' && l.periodS !== undefined ? [l.periodS * 1000] : [])).sort((a, b) => a - b);
  return periods.length ? periods[Math.floor(periods.length / 2)] : undefined;
}

// Facts about the run that the final header carries under `sampler` (drift, failure, cost).
export function samplerFacts(meta: NativeMeta, polled: { count: number; sumPct: number }): Record<string, unknown> {
  return {
    backend: 'nvml',
    utilStatus: meta.utilStatus,
    gpmStatus: meta.gpmStatus,
    clockCheck: meta.clockCheck,
    startOffsetS: meta.startOffset.offsetS,
    stopOffsetS: meta.stopOffset.offsetS,
    clockDriftUs: (meta.stopOffset.offsetS - meta.startOffset.offsetS) * 1e6,
    startS: meta.startMonoS,
    stopS: meta.stopMonoS,
    partial: meta.failed,
    failedAtS: meta.failedAtMonoS,
    tailCovered: meta.tailCovered,
    driverBuffer: meta.bufferSamples === undefined ? null : { samples: meta.bufferSamples, spanS: meta.bufferSpanS ?? null },
    utilEveryS: meta.utilEveryS ?? null,
    utilGaps: meta.utilGaps ?? 0,
    samplerCpuS: meta.threadCpuS,
    samplerCpuByActivityS: meta.cpuByActivity ?? null,
    polledUtil: { count: polled.count, meanPct: polled.count ? polled.sumPct / polled.count : null },
  };
}

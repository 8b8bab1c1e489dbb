// The shape of the native addon nh_nvml.node (native/addon/src/addon.cc), declared in one place.
// Every native failure is an Error whose `code` is one of NativeErrorCode.

export type NativeErrorCode =
  | 'NVML_UNAVAILABLE'
  | 'NVML_SYMBOL_MISSING'
  | 'NVML_INIT_FAILED'
  | 'NVML_ERROR'
  | 'NO_SUCH_DEVICE'
  | 'SAMPLER_NOT_STARTED'
  | 'SAMPLER_ALREADY_STARTED'
  | 'SAMPLER_ALREADY_STOPPED'
  | 'BAD_ARGUMENT';

// One device as NVML reports it; a field that could not be read is null and named in fieldErrors.
export interface NativeDevice {
  index: number;
  name: string | null;
  uuid: string | null;
  ccMajor: number | null;
  ccMinor: number | null;
  maxSmClockMHz: number | null;
  smClockMHz: number | null;
  persistenceMode: boolean | null;
  // Application clocks (what a launch targets); null where NVML does not report them.
  appSmClockMHz?: number | null;
  appMemClockMHz?: number | null;
  // null: the GPU has no MIG at all.
  mig: { current: boolean; pending: boolean } | null;
  gpmSupported: boolean;
  fieldErrors: Record<string, string>;
}

// probe(): never throws for a missing NVML; `available: false` carries the dlerror/init text.
export interface NativeProbe {
  available: boolean;
  code?: NativeErrorCode;
  message?: string;
  library?: string;
  processesSymbol?: string;
  eventReasonsSymbol?: string;
  driverVersion?: string | null;
  cudaDriverVersion?: string | null;
  devices: NativeDevice[];
}

// A driver utilization sample: NVML's own timestamp (µs on the driver's clock) and the previous one.
export interface NativeUtil {
  tsUs: number;
  prevTsUs: number | null;
  pct: number | null;
}

// What the thread collected since the last drain; tS fields are CLOCK_MONOTONIC seconds already.
export interface NativeRecords {
  util: NativeUtil[];
  polled: { tS: number; gpuPct: number; memPct: number }[];
  gpm: { tS: number; intervalS: number; smUtilPct: number | null; smOccupancyPct: number | null; dramBwUtilPct: number | null }[];
  clocks: { tS: number; smMHz: number | null; memMHz: number | null; reasonsMask: number | null }[];
  procs: { tS: number; pids: number[] }[];
  errors: { tS: number; what: string; message: string }[];
}

// CLOCK_REALTIME − CLOCK_MONOTONIC read inside one tight bracket.
export interface NativeClockOffset {
  offsetS: number;
  bracketS: number;
  monoS: number;
}

export interface NativeMeta {
  startOffset: NativeClockOffset;
  stopOffset: NativeClockOffset;
  // Starts with 'realtime:', 'monotonic:', 'unknown:' or 'unchecked:' — which clock NVML stamped with.
  clockCheck: string;
  startMonoS: number;
  stopMonoS: number;
  threadCpuS: number;
  failed: boolean;
  failedAtMonoS: number | null;
  gpmStatus: string;
  utilStatus: string;
  // After stop, a driver sample wholly past the stop instant was collected (so the period the stop cuts, and
  // the level after it, are both in the file).
  tailCovered: boolean;
  // Driver samples buffered at start and the seconds they spanned (how long the buffer holds), the drain cadence
  // chosen from it, and how many samples followed a gap (buffer overrun or a paused driver; left uncovered).
  bufferSamples?: number;
  bufferSpanS?: number;
  utilEveryS?: number;
  utilGaps?: number;
  // Thread CPU seconds by activity (attributes the sampler's cost).
  cpuByActivity?: { utilS: number; polledAndClocksS: number; gpmS: number; procsS: number };
}

export interface NativeSamplerOptions {
  deviceIndex?: number;
  periodMs?: number;
  utilEveryMs?: number;
  gpmIntervalMs?: number;
  procsEveryMs?: number;
  // How long stop() waits at most for that sample (default 1500 ms).
  tailMs?: number;
}

// One sampling thread; start() once, drain() any number of times, stop() once.
export interface NativeSampler {
  start(): void;
  drain(): NativeRecords;
  // The start-time part of NativeMeta (offset, clock check, util/GPM status); stop-time fields are zero.
  info(): NativeMeta;
  stop(): Promise<NativeRecords & { meta: NativeMeta }>;
}

export interface NativeBinding {
  abiVersion: number;
  probe(): NativeProbe;
  computeProcesses(deviceIndex: number): { symbol: string; processes: { pid: number; usedMemoryBytes: number | null }[] };
  monotonicNowS(): number;
  clockOffset(): NativeClockOffset;
  Sampler: new (opts?: NativeSamplerOptions) => NativeSampler;
  // Containment (native/addon/src/subreaper.cc; optional: an addon built before it lacks them).
  setChildSubreaper?(): { ok: true } | { ok: false; code: 'UNSUPPORTED' | 'PRCTL_FAILED'; message: string };
  isChildSubreaper?(): boolean;
  // Collects a dead child re-parented here; never a pid Node spawned itself.
  reapChild?(pid: number): boolean;
}

// The abiVersion this TypeScript expects; a stale .node from an older build is refused by name.
export const EXPECTED_ABI_VERSION = 2;

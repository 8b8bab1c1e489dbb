// The backend-neutral busy-sampler API that gates call (issue #5). Backends: NVML addon → nvidia-smi → none.

// Which instrument produced a samples file; 'none' means nothing was measured (the reason says why).
export type SamplerBackend = 'nvml' | 'nvidia-smi' | 'none';

// What a gate asks for: which GPU (required when more than one is visible), how often, and where the JSONL goes.
export interface BusySamplerOptions {
  deviceIndex?: number;
  // Poll period: NVML default 250 ms for clocks/reasons/GPM (the driver's buffered ~200 ms utilization samples are
  // drained far less often, see utilEveryMs), nvidia-smi default 100 ms.
  periodMs?: number;
  // NVML: how often the driver's buffered utilization samples are drained (default: half the span the driver's
  // buffer held at start, 0.5 to 20 s — each drain costs ~1.5 ms of CPU on an H200).
  utilEveryMs?: number;
  // NVML GPM pair spacing (default 1000 ms, never below 100 ms: shorter pairs read 0.0 with success).
  gpmIntervalMs?: number;
  samplesPath: string;
  // Refuse to fall back: e.g. ['nvml'] makes a missing addon an error instead of a quieter instrument.
  allowBackends?: SamplerBackend[];
}

// What stop() hands back: where the samples are, how many util samples, and what went wrong on the way.
export interface BusySamplerResult {
  backend: SamplerBackend;
  // null when backend is 'none': nothing was written, so there is nothing to read (NO_SAMPLES, never 0%).
  samplesPath: string | null;
  // Number of 'util' lines written (driver samples for nvml, nvidia-smi rows for nvidia-smi).
  count: number;
  errors: string[];
  // True when the instrument failed mid-window: the samples so far are kept, coverage says how much.
  partial: boolean;
  // Monotonic seconds the sampler ran [startS, stopS]; the gate clips to its own decode window.
  startS: number;
  stopS: number;
  // CPU seconds the sampling itself cost (native thread or nvidia-smi process), when known.
  samplerCpuS: number | null;
}

// A running sampler: which backend won and why the better ones did not.
export interface BusySampler {
  backend: SamplerBackend;
  reason?: string;
  deviceIndex: number | null;
  samplesPath: string;
  stop(): Promise<BusySamplerResult>;
}

// A process using the GPU (the contention check of a/b and busy gates).
export interface ComputeProcess {
  pid: number;
  usedMemoryBytes: number | null;
}

// The answer of computeProcesses(): measured by a backend, or not measurable here (by name).
export type ComputeProcessesResult =
  | { status: 'measured'; backend: 'nvml' | 'nvidia-smi'; processes: ComputeProcess[] }
  | { status: 'unavailable'; reason: string };

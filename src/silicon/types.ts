// The identity of the hardware a number was taken on (SPEC §2). Two numbers compare only with equal keys.
export interface Silicon {
  kind: 'gpu' | 'cpu-only';
  gpuName: string | null;
  uuid: string | null;
  computeCapability: string | null; // "9.0"
  smArch: string | null; // "sm_90"
  archTarget: string | null; // "90a"
  driverVersion: string | null;
  cudaDriverVersion: string | null;
  maxSmClockMHz: number | null;
  // Recorded beside the identity (not part of the key): persistence mode and the application clocks, when NVML reads them.
  persistenceMode?: boolean | null;
  appSmClockMHz?: number | null;
  appMemClockMHz?: number | null;
  cpuModel: string;
  source: 'nvml' | 'nvidia-smi' | 'none' | 'claimed';
}

// Arch claims as users type them (--arch 121a, 90, 110, cpu) normalised to a compute capability.
export function archToComputeCapability(arch: string): string | null {
  if (arch === 'cpu') return null;
  const m = /^(\d+)(\d)([af]?)$/.exec(arch);
  if (!m) return null;
  return `${Number(m[1])}.${m[2]}`;
}

// The key two comparable numbers must share: what the hardware is, not which unit of it.
export function siliconKey(s: Silicon): string {
  if (s.kind === 'cpu-only') return `cpu:${s.cpuModel}`;
  return `gpu:${s.gpuName}|cc${s.computeCapability}`;
}

// The arch key every command prints for a host it was not told about: the plain compute capability digits
// (90 on an H200, 121 on a GB10), 'cpu' without a GPU. A claim (--arch 90a) is printed as claimed.
export function hostArchKey(s: Silicon): string {
  if (s.kind !== 'gpu') return 'cpu';
  if (s.smArch) return s.smArch.replace(/^sm_/, '');
  const m = s.computeCapability === null ? null : /^(\d+)\.(\d)$/.exec(s.computeCapability);
  return m ? `${m[1]}${m[2]}` : 'gpu';
}


// Pure parsers for nvidia-smi's CSV output (--format=csv,noheader,nounits).

// One `--query-gpu=timestamp,utilization.gpu,clocks.sm,clocks.mem` row; null fields read [N/A] or [Not Supported].
export interface SmiRow {
  epochMs: number;
  utilPct: number | null;
  smMHz: number | null;
  memMHz: number | null;
}

// nvidia-smi prints host local time ("2026/11/30 04:20:01.123"); parsed in this process's time zone.
export function parseSmiTimestamp(text: string): number | null {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return null;
  const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const t = d.getTime() + frac;
  return Number.isFinite(t) ? t : null;
}

function numOrNull(text: string | undefined): number | null {
  if (text === undefined) return null;
  const t = text.trim();
  if (t === '' || t.startsWith('[')) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

// A sampling row, or null for anything else (a banner, an error line, a blank line).
export function parseSmiRow(line: string): SmiRow | null {
  const cols = line.split(',');
  if (cols.length < 2) return null;
  const epochMs = parseSmiTimestamp(cols[0] ?? '');
  if (epochMs === null) return null;
  const utilPct = numOrNull(cols[1]);
  return { epochMs, utilPct: utilPct !== null && utilPct >= 0 && utilPct <= 100 ? utilPct : null, smMHz: numOrNull(cols[2]), memMHz: numOrNull(cols[3]) };
}

// One `--query-gpu=index,name,uuid,compute_cap,driver_version,clocks.max.sm` row.
export interface SmiGpu {
  index: number;
  name: string;
  uuid: string | null;
  computeCapability: string | null;
  driverVersion: string | null;
  maxSmClockMHz: number | null;
}

// The GPU list; rows that do not parse are skipped (nvidia-smi prints errors on stdout too).
export function parseSmiGpus(stdout: string): SmiGpu[] {
  const out: SmiGpu[] = [];
  for (const line of stdout.split('\n')) {
    const c = line.split(',').map((s) => s.trim());
    if (c.length < 6 || !/^\d+$/.test(c[0] ?? '')) continue;
    const str = (s: string | undefined): string | null => (s === undefined || s === '' || s.startsWith('[') ? null : s);
    out.push({
      index: Number(c[0]),
      name: c[1] ?? '',
      uuid: str(c[2]),
      computeCapability: str(c[3]),
      driverVersion: str(c[4]),
      maxSmClockMHz: numOrNull(c[5]),
    });
  }
  return out;
}

// `CUDA Version: 13.0` from plain `nvidia-smi` output.
export function parseSmiCudaVersion(stdout: string): string | null {
  const m = /CUDA Version:\s*([0-9.]+)/.exec(stdout);
  return m?.[1] ?? null;
}

// `--query-compute-apps=pid,used_memory` rows.
export function parseSmiProcesses(stdout: string): { pid: number; usedMemoryBytes: number | null }[] {
  const out: { pid: number; usedMemoryBytes: number | null }[] = [];
  for (const line of stdout.split('\n')) {
    const c = line.split(',').map((s) => s.trim());
    if (!/^\d+$/.test(c[0] ?? '')) continue;
    const mib = numOrNull(c[1]);
    out.push({ pid: Number(c[0]), usedMemoryBytes: mib === null ? null : mib * 1024 * 1024 });
  }
  return out;
}

// One-shot nvidia-smi queries (GPU list, CUDA version, compute processes): the fallback when NVML is absent.
import { execFile } from 'node:child_process';
import { parseSmiCudaVersion, parseSmiGpus, parseSmiProcesses, type SmiGpu } from './smiParse.js';

export type SmiAnswer<T> = { ok: true; value: T } | { ok: false; reason: string };

// Runs nvidia-smi with a timeout; a missing binary or a failing driver comes back as a reason.
export function runSmi(args: string[], timeoutMs = 10_000): Promise<SmiAnswer<string>> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', args, { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { code?: unknown };
        const why = e.code === 'ENOENT' ? 'nvidia-smi is not on PATH' : `nvidia-smi ${args[0] ?? ''} failed: ${(stderr || stdout || e.message).trim().split('\n')[0]}`;
        resolve({ ok: false, reason: why });
        return;
      }
      resolve({ ok: true, value: stdout });
    });
  });
}

// The GPUs nvidia-smi sees, with the identity fields silicon needs.
export async function smiGpus(): Promise<SmiAnswer<SmiGpu[]>> {
  const r = await runSmi(['--query-gpu=index,name,uuid,compute_cap,driver_version,clocks.max.sm', '--format=csv,noheader,nounits']);
  if (!r.ok) return r;
  return { ok: true, value: parseSmiGpus(r.value) };
}

// The CUDA driver version from nvidia-smi's banner (there is no query field for it).
export async function smiCudaVersion(): Promise<string | null> {
  const r = await runSmi([]);
  return r.ok ? parseSmiCudaVersion(r.value) : null;
}

// Compute processes on one GPU.
export async function smiProcesses(deviceIndex: number): Promise<SmiAnswer<{ pid: number; usedMemoryBytes: number | null }[]>> {
  const r = await runSmi(['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits', '-i', String(deviceIndex)]);
  if (!r.ok) return r;
  return { ok: true, value: parseSmiProcesses(r.value) };
}

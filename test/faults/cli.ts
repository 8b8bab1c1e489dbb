// Shared by the fault suite: nh-gate as users run it (bin → dist), on a flood-driver repo, with its peak RSS.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/engine.js';

export const BIN = join(repoRoot, 'bin', 'nh-gate.js');

export interface CliRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  // VmHWM of the nh-gate process, polled from /proc (the high-water mark only grows, so polling finds it).
  peakMiB: number;
}

// Runs nh-gate with args; resultsDir gets runs/ and the GPU lock.
export function nhGate(args: string[], resultsDir: string, env: Record<string, string> = {}): Promise<CliRun> & { pid: number } {
  const child = spawn(process.execPath, [BIN, ...args, '--results-dir', resultsDir], {
    env: { ...process.env, NH_GATE_LOCK: join(resultsDir, 'gpu.lock'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let peakKiB = 0;
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
    } catch {
      /* exited */
    }
  }, 20);
  const done = new Promise<CliRun>((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      // Let the pipes drain.
      setTimeout(() => resolve({ code, signal, stdout, stderr, peakMiB: peakKiB / 1024 }), 50);
    });
  });
  return Object.assign(done, { pid: child.pid! });
}

export function resultsDir(): string {
  return mkdtempSync(join(tmpdir(), 'nh-faults-'));
}

// The run directories under a results dir, oldest first, with their result.json.
export function runs(dir: string): Array<{ dir: string; result: Record<string, any> | null }> {
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, 'runs')).sort();
  } catch {
    return [];
  }
  return names.map((n) => {
    const d = join(dir, 'runs', n);
    try {
      return { dir: d, result: JSON.parse(readFileSync(join(d, 'result.json'), 'utf8')) };
    } catch {
      return { dir: d, result: null };
    }
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// Polls cond up to limitMs (a loaded CI box is slow; the condition, not the time, is what is asserted).
export async function waitFor(cond: () => boolean, limitMs = 20_000): Promise<boolean> {
  const end = Date.now() + limitMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(50);
  }
  return cond();
}

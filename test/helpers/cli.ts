import { vi } from 'vitest';
import { createProgram } from '../../src/cli/main.js';

// Runs the real command parser in-process; returns the exit code and what went to stdout/stderr.
export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => { out += String(s); return true; });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  process.exitCode = 0;
  try {
    await createProgram().parseAsync(['node', 'nh-gate', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { code, out, err };
}

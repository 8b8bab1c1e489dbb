import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadsOf } from '../../src/cli/commands/serve.js';

// main() as bin/nh-gate.js calls it (commander's own errors become exit 2 there), stderr captured.
async function run(...args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { err += String(s); return true; });
  process.exitCode = 0;
  try {
    await main(['node', 'nh-gate', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { code, err };
}

// The serve command's options, parsed in-process: every mistake is a usage error (exit 2) that names the option.
describe('nh-gate serve options', () => {
  it('a load is a rate, a concurrency or a sweep', () => {
    expect(loadsOf({ rate: 2, seed: 3 })).toEqual([{ kind: 'rate', ratePerS: 2, seed: 3 }]);
    expect(loadsOf({ concurrency: 4, seed: 1 })).toEqual([{ kind: 'concurrency', inFlight: 4 }]);
    expect(loadsOf({ sweep: [1, 4], seed: 9 })).toEqual([{ kind: 'rate', ratePerS: 1, seed: 9 }, { kind: 'rate', ratePerS: 4, seed: 9 }]);
    expect(() => loadsOf({ seed: 1 })).toThrow(/needs a load: --rate R, --concurrency C or --sweep/);
  });

  const cases: Array<[string[], RegExp]> = [
    [['--concurrency', '2'], /required option '--requests <n>' not specified/],
    [['--requests', '4'], /needs a load/],
    [['--rate', '2', '--concurrency', '2', '--requests', '4'], /option '--rate <r>' cannot be used with option '--concurrency <c>'/],
    [['--concurrency', '2', '--sweep', '1,2', '--requests', '4'], /cannot be used with option '--sweep <rates>'/],
    [['--rate', '0', '--requests', '4'], /option '--rate <r>' argument '0' is invalid\. 0 is not a positive rate/],
    [['--concurrency', '1.5', '--requests', '4'], /1\.5 is not a positive integer/],
    [['--sweep', '2', '--requests', '4'], /a sweep needs at least two rates/],
    [['--sweep', '2,2', '--requests', '4'], /repeats a rate/],
    [['--concurrency', '2', '--requests', '4', '--slo', 'ttft=fast'], /ttft needs a positive duration with its unit/],
    [['--concurrency', '2', '--requests', '4', '--duration', '-1'], /-1 is not a number of seconds ≥ 0/],
    [['--concurrency', '2', '--requests', '8', '--max-requests', '4'], /--max-requests 4 is below --requests 8/],
    [['--recipe', 'nh-ref', '--concurrency', '1', '--requests', '1'], /recipe 'nh-ref' has no "serve" block/],
  ];
  for (const [args, message] of cases) {
    it(`refuses ${args.join(' ')}`, async () => {
      const r = await run('serve', ...args);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/\n\s+at /);
    });
  }
});

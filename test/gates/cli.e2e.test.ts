import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { fakeRepo } from './fake.js';

// The CLI as users run it (bin → dist). `npm test` builds dist first.
const bin = join(repoRoot, 'bin', 'nh-gate.js');
function nhGate(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'nh-cli-'));
  return { dir, proc: execa('node', [bin, ...args, '--results-dir', dir], { reject: false, env: { NH_GATE_LOCK: join(dir, 'gpu.lock'), ...env } }) };
}

describe('nh-gate CLI', () => {
  beforeAll(() => {
    if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  });

  it('a3 --arch 121a on this host: VOID (NO_SUCH_SILICON), exit 3, by name', async () => {
    const r = await nhGate(['a3', '--arch', '121a']).proc;
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/VOID — NO_SUCH_SILICON: --arch 121a claims compute capability 12\.1, but this host has no GPU/);
  });

  it('--json prints exactly one JSON document on stdout', async () => {
    const r = await nhGate(['a3', '--arch', '121a', '--json']).proc;
    const doc = JSON.parse(r.stdout);
    expect(doc.verdict.word).toBe('VOID');
    expect(doc.schemaVersion).toBe(1);
  });

  it('bad input exits 2 without a stack trace: unknown flag, bad --arch, unknown recipe', async () => {
    const flag = await nhGate(['ab', '--flag', 'NOPE']).proc;
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("UNKNOWN_FLAG: flag 'NOPE' is not declared by recipe 'nh-ref'");
    expect(flag.stderr).toContain('fix: use one of: DEVICE_MAMBA, MAMBA_DECODE_STEP');
    expect(flag.stderr).not.toMatch(/\n\s+at /);
    const arch = await nhGate(['a3', '--arch', 'sm_banana']).proc;
    expect(arch.exitCode).toBe(2);
    const recipe = await nhGate(['a3', '--recipe', 'nope']).proc;
    expect(recipe.exitCode).toBe(2);
    expect(recipe.stderr).toMatch(/UNKNOWN_RECIPE/);
  });

  it('Ctrl-C stops the series cleanly: the running leg\'s tree is killed, finished legs are kept, exit 3', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.6' });
    const { dir, proc } = nhGate(['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', '4']);
    // Wait until at least one leg is on disk (result.json is rewritten after every leg), then Ctrl-C.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const runs = existsSync(join(dir, 'runs')) ? readdirSync(join(dir, 'runs')) : [];
      const file = runs[0] ? join(dir, 'runs', runs[0], 'result.json') : null;
      if (file && existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).legs.length >= 1) break;
      if (Date.now() > deadline) throw new Error('no leg finished within 20 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(3);
    const runs = readdirSync(join(dir, 'runs'));
    const result = JSON.parse(readFileSync(join(dir, 'runs', runs[0]!, 'result.json'), 'utf8'));
    expect(result.status).toBe('interrupted');
    expect(result.legs.length).toBeGreaterThanOrEqual(1);
    expect(result.legs.length).toBeLessThan(8);
    expect(`${result.verdict.reasons[0].code}: ${result.verdict.reasons[0].message}`).toMatch(/^PARTIAL: interrupted after \d+ of 8 leg/);
    expect(existsSync(join(dir, 'gpu.lock'))).toBe(false);
  }, 30_000);
});

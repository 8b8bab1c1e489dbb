// The stand-in nemotron-h-gen alone: the argument handling and exit codes main.cpp @ a76711751503 shows,
// and what nh-gate makes of the runs that exit 0 having compared nothing (not a pass).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/engine.js';

const GEN = join(repoRoot, 'test/fixtures/nemotron-h/engine/standin/nemotron-h-gen.mjs');
const ORACLE = join(repoRoot, 'test/fixtures/vllm-cpp/nemotron_35_lightning_greedy/oracle.json');
const bin = join(repoRoot, 'bin', 'nh-gate.js');
const dir = mkdtempSync(join(tmpdir(), 'nh-standin-'));
const gen = (args: string[], env: Record<string, string> = {}) =>
  execa('node', [GEN, ...args], { reject: false, env: { STANDIN_LOAD_S: '0', STANDIN_TOKEN_MS: '0', ...env } });

// What `nh-gate analyze` says of a captured log: its exit code and text.
async function analyzed(stderr: string) {
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, stderr + '\n');
  return execa('node', [bin, 'analyze', '--log', log, '--recipe', 'nemotron-h', '--arch', '121a'], { reject: false });
}

describe('stand-in nemotron-h-gen', () => {
  it('exit codes: 0 STRICT PASS, 1 DIVERGENCE, 2 usage/golden, 3 zero compared, 4 SHORT', async () => {
    expect((await gen(['--model', dir, '--golden', ORACLE])).exitCode).toBe(0);
    const div = await gen(['--model', dir, '--golden', ORACLE], { STANDIN_WRONG: '0:3' });
    expect(div.exitCode).toBe(1);
    expect(div.stderr).toContain('[nemotron-h] DIVERGENCE');
    expect(div.stderr).toContain('...against a golden whose engine configuration is NOT recorded');
    expect((await gen(['--bogus'])).stderr).toBe('unknown arg --bogus');
    expect((await gen(['--bogus'])).exitCode).toBe(2);
    expect((await gen(['--golden', ORACLE])).exitCode).toBe(2); // no --model, no --golden-info: usage
    expect((await gen(['--golden-info'])).stderr).toBe('--golden-info needs --golden <oracle.json>');
    writeFileSync(join(dir, 'empty.json'), JSON.stringify({ vllm: '1', golden: [{ prompt: 'x', prompt_token_ids: [], token_ids: [1] }] }));
    const bad = await gen(['--golden-info', '--golden', join(dir, 'empty.json')]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('[nemotron-h] golden FAILED to parse: golden: an entry has an EMPTY prompt_token_ids');
    const zero = await gen(['--model', dir, '--golden', ORACLE, '--steps', '0']);
    expect(zero.exitCode).toBe(3);
    expect(zero.stderr).toContain('REFUSING: ZERO tokens compared');
    const short = await gen(['--model', dir, '--golden', ORACLE, '--steps', '16']);
    expect(short.exitCode).toBe(4);
    expect(short.stderr).toMatch(/compared=16 matched=16 wall=\d+\.\d\ds {2}<-- SHORT RUN, not a full row/);
    const load = await gen(['--model', join(dir, 'absent'), '--golden', ORACLE]);
    expect(load.exitCode).toBe(1);
    expect(load.stderr).toContain('[nemotron-h] engine load FAILED');
  });

  it('--golden-info, --load-only and a run without --golden exit 0 having compared nothing; nh-gate calls none a pass', async () => {
    const info = await gen(['--golden-info', '--golden', ORACLE]);
    const loadOnly = await gen(['--model', dir, '--golden', ORACLE, '--load-only']);
    const noGolden = await gen(['--model', dir]);
    for (const r of [info, loadOnly, noGolden]) {
      expect(r.exitCode).toBe(0);
      expect(r.stderr).not.toContain('TOKEN MATCH');
      const a = await analyzed(r.stderr);
      expect(a.exitCode).toBe(3);
      expect(a.stdout).not.toMatch(/judged: STRICT PASS/);
    }
    expect(info.stderr).toContain('             entry 2: prompt_token_ids=13 golden_width=32');
    expect(noGolden.stderr).toContain('[nemotron-h] no --golden given: loaded only, nothing compared');
  });

  it('--both-modes prints two TOKEN MATCH blocks, counters reset per mode', async () => {
    const r = await gen(['--model', dir, '--golden', ORACLE, '--both-modes']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr.match(/TOKEN MATCH: 96\/96 over 3 prompt\(s\) \(full rows=3, short rows=0, mode=(decode|fresh-prefill)\)/g)).toHaveLength(2);
    expect(r.stderr).toContain('===== MODE fresh-prefill =====');
  });
});

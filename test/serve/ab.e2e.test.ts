import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { needsTitle } from '../helpers/needs.js';
import { CLI, LLAMA_NEED, llamaReady } from '../engines/llama.js';
import { serveRecipe } from './recipe.js';

// An A/B of one recipe flag under load, on the real CPU llama-server: THREADS=1 against THREADS=2, each leg one
// load at concurrency 2 against a server started with that arm's environment, ABBA, every response checked
// against the golden, the criterion judged by the one A/B judge with its interval. This host has 2 cores shared
// with other jobs, so the test asserts what the harness decides (structure, witness, the word set), never which
// thread count is faster. A proxy that corrupts one token of one leg's stream makes that leg no pass, by name.

const dir = mkdtempSync(join(tmpdir(), 'nh-gate-serve-ab-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const golden = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'llama-cpp-tiny', 'golden.json'), 'utf8'));

// A serve A/B gate of THREADS=1 (A) against THREADS=2 (B): a non-inferiority margin no loaded host reaches
// on the tiny model is not claimed; the word is whatever the interval says.
function gate(name: string, recipe: string, extra: Record<string, unknown> = {}): string {
  const g = {
    schemaVersion: 1, kind: 'ab', name, recipe, flag: 'THREADS', arch: 'cpu', arms: { A: '1', B: '2' },
    serve: { concurrency: 2, requests: 4, slo: 'ttft=5s,tpot=1s' },
    criteria: {
      statement: 'B serves with a TPOT p50 at most 50% higher than A (reported; a loaded 2-core host may refute it)', combine: 'all', refutationFails: false,
      metrics: [{ metric: 'tpotP50', form: 'ratio', claim: 'non-inferiority', arm: 'B', worse: 'higher', atMostPct: 50 }],
    },
    repeats: 2, order: 'abba', ...extra,
  };
  const file = join(dir, `${name}.gate.json`);
  writeFileSync(file, JSON.stringify(g));
  return file;
}
const ab = (args: string[]) => execa('node', [CLI, 'ab', ...args, '--results-dir', join(dir, 'res')], { cwd: dir, reject: false, all: true, timeout: 300_000 });
const runDirOf = (out: string) => /run directory: (\S+)/.exec(out)![1]!;
const resultOf = (out: string) => JSON.parse(readFileSync(join(runDirOf(out), 'result.json'), 'utf8'));

describe.skipIf(!llamaReady)(needsTitle('nh-gate ab with a serve block against llama-server', LLAMA_NEED), () => {
  it('THREADS=1 vs 2 under concurrency 2: 4 legs ABBA, each a load with every token checked, the criterion judged with its interval', async () => {
    const r = await ab(['--gate', gate('serve-ab-threads', serveRecipe(dir, 'serve-ab-plain', null))]);
    // refutationFails false: SUPPORTED and REFUTED exit 0; an interval that straddles the margin is UNRESOLVED (3).
    expect([0, 3], r.all).toContain(r.exitCode);
    const total = 4 * golden.sampling.maxNewTokens;
    for (const [i, label] of ['A1 THREADS=1', 'B1 THREADS=2', 'B2 THREADS=2', 'A2 THREADS=1'].entries()) {
      expect(r.all).toContain(`[nh-gate] leg ${i + 1} (${label}) concurrency 2: 4 request(s), tokens ${total}/${total} → VALID`);
      expect(r.all).toContain(`leg ${i + 1}/4 [${label}]: STRICT PASS — ${total}/${total} tokens`);
    }
    expect(r.all).toMatch(/^tpotP50 ratio B\/A [\d.]+x \(median of arm B \(2 legs, THREADS=2\) [\d.]+ s; median of arm A \(2 legs, THREADS=1\) [\d.]+ s; 95% interval \(percentile bootstrap over legs/m);
    expect(r.all).toMatch(/^(SUPPORTED|REFUTED|UNRESOLVED) \(non-inferiority of tpotP50: arm B \(THREADS=2\) at most 50% higher than arm A \(THREADS=1\): B\/A ≤ 1\.5000\) — CRITERION: tpotP50Ratio: 95% interval \[[\d.]+, [\d.]+\]/m);
    const res = resultOf(r.all);
    expect(res).toMatchObject({ command: 'ab', status: 'complete', gate: { name: 'serve-ab-threads' } });
    expect(res.plan.text).toContain("each leg: one load (concurrency 2, at least 4 request(s) over at least 0 s, server slots 2) against a server started with the arm's environment; every response token-checked");
    expect(res.plan.text).toMatch(/leg 1: A1 THREADS=1 \(mode serve\)/);
    expect(res.plan.text).not.toMatch(/mode decode/);
    expect(res.legs.map((l: { arm: string }) => l.arm)).toEqual(['A', 'B', 'B', 'A']);
    for (const l of res.legs) {
      expect(l).toMatchObject({ verdict: 'STRICT PASS', witness: 'harness', mode: 'serve', tokens: { source: 'served streams', compared: total, matched: total } });
      expect(l.flagEnv).toEqual({ LLAMA_ARG_THREADS: l.arm === 'A' ? '1' : '2' });
      expect(l.serve.requests).toHaveLength(4);
      expect(l.quantities.tpotP50.status).toBe('measured');
      expect(l.loadLine.loadS).toBeGreaterThan(0);
      // The server restarted per leg with the arm's environment; its log and the load's requests are kept.
      expect(l.process.argv[0]).toMatch(/llama-server$/);
      expect(existsSync(join(res.runDir, l.logFile)), l.logFile).toBe(true);
      expect(readFileSync(join(res.runDir, l.logFile.replace(/\.server\.log$/, '.requests.jsonl')), 'utf8').trim().split('\n')).toHaveLength(4);
    }
    const m = res.comparison.metrics[0];
    expect(m).toMatchObject({ key: 'tpotP50Ratio' });
    expect(['SUPPORTED', 'REFUTED', 'UNRESOLVED']).toContain(res.verdict.word);
    expect(readFileSync(join(res.runDir, 'junit.xml'), 'utf8')).toMatch(/tests="\d+"/);
    expect(existsSync(join(res.runDir, 'summary.md'))).toBe(true);
    expect(existsSync(join(res.runDir, 'report.html'))).toBe(true);
    const ledger = readFileSync(join(dir, 'res', 'ledger.jsonl'), 'utf8').trim().split('\n').map((x) => JSON.parse(x));
    // Keyed apart in history: a serve A/B's legs are of mode serve, never one series with a driver A/B's.
    expect(ledger.find((e: { runDir: string }) => e.runDir === res.runDir)).toMatchObject({ command: 'ab', gate: 'serve-ab-threads', series: { modes: ['serve'], arms: ['A LLAMA_ARG_THREADS=1', 'B LLAMA_ARG_THREADS=2'] } });
  }, 300_000);

  it('one corrupted token in the first leg\'s stream: that leg is DIVERGENCE, the A/B names the leg and the request, no speed taken from it', async () => {
    const once = join(dir, 'corrupted-once');
    const r = await ab(['--gate', gate('serve-ab-corrupt', serveRecipe(dir, 'serve-ab-corrupt', ['--corrupt', '2:5', '--once-file', once]))]);
    expect(r.exitCode, r.all).not.toBe(0);
    const total = 4 * golden.sampling.maxNewTokens;
    expect(r.all).toContain(`[nh-gate] leg 1 (A1 THREADS=1) concurrency 2: 4 request(s), tokens ${total - 1}/${total} → DIVERGENCE`);
    expect(r.all).toMatch(/LEG_NOT_PASSED: leg 1 \(A1 THREADS=1\): DIVERGENCE — WRONG_TOKENS: 1 of 4 request\(s\) served wrong tokens: request \d \(prompt \d\) position 5: got \d+, expected \d+/);
    const res = resultOf(r.all);
    expect(res.legs.map((l: { verdict: string }) => l.verdict)).toEqual(['DIVERGENCE', 'STRICT PASS', 'STRICT PASS', 'STRICT PASS']);
    for (const q of Object.values(res.legs[0].quantities)) expect(q).toMatchObject({ status: 'refused', reason: 'WRONG_TOKENS' });
    expect(res.legs[0].serve.tokens.wrong).toHaveLength(1);
    expect(res.verdict.reasons.some((x: { code: string; message: string }) => x.code === 'LEG_NOT_PASSED' && x.message.startsWith('leg 1 (A1 THREADS=1): DIVERGENCE'))).toBe(true);
  }, 300_000);

  it('refuses, before any leg, a serve metric without a serve block, a serve gate on a recipe with no server, and --mode (exit 2)', async () => {
    const noBlock = await ab(['--gate', gate('serve-ab-noblock', serveRecipe(dir, 'serve-ab-nb', null), { serve: undefined }), '--dry-run']);
    expect(noBlock.exitCode, noBlock.all).toBe(2);
    expect(noBlock.all).toMatch(/criteria\.metrics\.0\.metric: 'tpotP50' is a serve load's figure — add a "serve" block/);
    const r = JSON.parse(readFileSync(serveRecipe(dir, 'serve-ab-noserver', null), 'utf8'));
    delete r.serve;
    r.name = 'serve-ab-noserver';
    writeFileSync(join(dir, 'noserver.json'), JSON.stringify(r));
    const noServer = await ab(['--gate', gate('serve-ab-noserver', join(dir, 'noserver.json')), '--dry-run']);
    expect(noServer.exitCode, noServer.all).toBe(2);
    expect(noServer.all).toMatch(/criteria\.metrics\.0\.metric: 'tpotP50' is a serve load's figure, but recipe 'serve-ab-noserver' has no "serve" block/);
    const mode = await ab(['--gate', gate('serve-ab-mode', serveRecipe(dir, 'serve-ab-mode', null)), '--mode', 'fresh-prefill', '--dry-run']);
    expect(mode.exitCode, mode.all).toBe(2);
    expect(mode.all).toMatch(/^nh-gate: USAGE: --mode fresh-prefill: a serve leg is one load of whole requests, not a decode mode$/m);
  }, 120_000);
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { needsTitle } from '../helpers/needs.js';
import { CLI, LLAMA_NEED, llamaReady } from '../engines/llama.js';
import { serveRecipe } from './recipe.js';

// nh-gate serve against the real CPU llama-server: every served token checked under concurrency, a planted
// wrong token (a proxy between the harness and the server) and a stalled stream, each named in the result.

const dir = mkdtempSync(join(tmpdir(), 'nh-gate-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const golden = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'llama-cpp-tiny', 'golden.json'), 'utf8'));
const recipe = (name: string, proxyArgs: string[] | null): string => serveRecipe(dir, name, proxyArgs);

const serve = (args: string[]) => execa('node', [CLI, 'serve', ...args, '--results-dir', join(dir, 'res')], { cwd: dir, reject: false, all: true, timeout: 300_000 });
const resultOf = (out: string) => JSON.parse(readFileSync(join(/run directory: (\S+)/.exec(out)![1]!, 'result.json'), 'utf8'));
const runDirOf = (out: string) => /run directory: (\S+)/.exec(out)![1]!;

describe.skipIf(!llamaReady)(needsTitle('nh-gate serve against llama-server', LLAMA_NEED), () => {
  it('concurrency 2: every served token checked against the golden, figures with their terms, VALID (exit 0)', async () => {
    const r = await serve(['--recipe', recipe('serve-plain', null), '--concurrency', '2', '--requests', '8', '--slo', 'ttft=2s,tpot=500ms']);
    expect(r.exitCode, r.all).toBe(0);
    const total = 8 * golden.sampling.maxNewTokens;
    expect(r.all).toContain(`[nh-gate] serve concurrency 2: 8 request(s), tokens ${total}/${total} → VALID`);
    expect(r.all).toMatch(/^TTFT p50 \d+\.\d+ s \(nearest rank 4; of 8 values; unfinished \(ranked above all\) 0 requests; over requests; clock harness arrival stamps/m);
    expect(r.all).toMatch(/^output token throughput [\d.]+ tokens\/s \(output tokens of finished requests 256 tokens; window \(first send → last end\) [\d.]+ s; finished 8 requests; unfinished \(counted, not dropped\) 0 requests; server load \(before the window, excluded\) [\d.]+ s\)/m);
    expect(r.all).toMatch(/^goodput [\d.]+ requests\/s \(met the SLO \d requests; SLO ttft ≤ 2000 ms, tpot ≤ 500 ms/m);
    expect(r.all).toMatch(/^VALID$/m);
    const res = resultOf(r.all);
    expect(res).toMatchObject({ schemaVersion: 1, command: 'serve', status: 'complete', verdict: { word: 'VALID', exitClass: 'passed' } });
    const p = res.serve.points[0];
    expect(p.tokens).toEqual({ compared: total, matched: total, wrong: [] });
    expect(p.requests).toHaveLength(8);
    for (const q of p.requests) expect(q).toMatchObject({ end: 'done', status: 'match', tokens: 32 });
    // Requests carry the golden's prompts in turn; the server was ready before the first send.
    expect(p.requests.map((q: { prompt: number }) => q.prompt)).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
    expect(res.serve.server.loadS).toBeGreaterThan(0);
    for (const k of ['ttftP50', 'ttftP90', 'ttftP99', 'ttftMax', 'tpotP50', 'itlP99', 'e2eMax', 'requestThroughput', 'outputTokenThroughput', 'goodput']) expect(res.quantities[k].status, k).toBe('measured');
    const junit = readFileSync(join(runDirOf(r.all), 'junit.xml'), 'utf8');
    expect(junit).toMatch(/tests="1" failures="0" errors="0"/);
    const ledger = readFileSync(join(dir, 'res', 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const line = ledger.find((e: { runDir: string }) => e.runDir === runDirOf(r.all));
    expect(line).toMatchObject({ command: 'serve', verdict: 'VALID', recipe: 'serve-plain' });
    expect(line.figures.ttftP50.unit).toBe('s');
    expect(readFileSync(join(runDirOf(r.all), 'requests.jsonl'), 'utf8').trim().split('\n')).toHaveLength(8);
  }, 300_000);

  it('one token of one stream corrupted by a proxy: the run is not a performance result — WRONG_TOKENS names the request, every figure withheld (exit 1)', async () => {
    const r = await serve(['--recipe', recipe('serve-corrupt', ['--corrupt', '2:5']), '--concurrency', '2', '--requests', '4']);
    expect(r.exitCode, r.all).toBe(1);
    expect(r.all).toMatch(/tokens 127\/128 → DIVERGENCE/);
    expect(r.all).toMatch(/^DIVERGENCE — WRONG_TOKENS: 1 of 4 request\(s\) served wrong tokens: request \d \(prompt \d\) position 5: got \d+, expected \d+/m);
    expect(r.all).toMatch(/^TTFT p50 REFUSED \(WRONG_TOKENS\): request\(s\) \d served wrong tokens — a speed measured on wrong tokens is void$/m);
    const res = resultOf(r.all);
    const p = res.serve.points[0];
    expect(p.tokens.wrong).toHaveLength(1);
    expect(p.valid).toBe(true);
    const wrong = p.requests.find((q: { status: string }) => q.status === 'divergence');
    expect(wrong.firstMismatch.position).toBe(5);
    expect(wrong.firstMismatch.got).toBe(wrong.firstMismatch.exp + 1);
    for (const [k, q] of Object.entries(res.quantities)) expect((q as { reason?: string }).reason, k).toBe('WRONG_TOKENS');
    expect(readFileSync(join(runDirOf(r.all), 'junit.xml'), 'utf8')).toMatch(/<failure type="DIVERGENCE"/);
  }, 300_000);

  it('a stream that stalls past --request-timeout is counted, not dropped: UNFINISHED, the percentiles on it refused (INVALID, exit 3)', async () => {
    // 15 s: long enough that a server slowed by a loaded host is not mistaken for the planted stall.
    const r = await serve(['--recipe', recipe('serve-stall', ['--stall', '1']), '--concurrency', '2', '--requests', '4', '--request-timeout', '15']);
    expect(r.exitCode, r.all).toBe(3);
    expect(r.all).toMatch(/^INVALID — UNFINISHED: 1 of 4 request\(s\) did not finish \(1 timed out, 0 failed\): request\(s\) \d$/m);
    expect(r.all).toMatch(/^E2E max REFUSED \(TIMEOUT\): rank 4 of 4 falls among the 1 request\(s\) that did not finish/m);
    expect(r.all).toMatch(/unfinished \(counted, not dropped\) 1 requests/);
    const res = resultOf(r.all);
    const stalled = res.serve.points[0].requests.filter((q: { end: string }) => q.end === 'timeout');
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({ tokens: 1, status: 'short', error: 'no end within 15 s; the client closed the stream' });
    expect(stalled[0].endS - stalled[0].sentS).toBeGreaterThanOrEqual(14.9);
    expect(res.quantities.e2eP50.status).toBe('measured');
  }, 300_000);

  it('--sweep: one load per rate against one server, each judged; the knee and the throughput–latency plot reported', async () => {
    const r = await serve(['--recipe', recipe('serve-sweep', null), '--sweep', '2,8', '--requests', '4']);
    expect([0, 3], r.all).toContain(r.exitCode);
    expect(r.all).toMatch(/serve Poisson arrivals at 2 requests\/s \(seed 1\): 4 request\(s\), tokens 128\/128 →/);
    expect(r.all).toMatch(/serve Poisson arrivals at 8 requests\/s \(seed 1\): 4 request\(s\), tokens 128\/128 →/);
    expect(r.all).toMatch(/knee: (not found|[\d.]+ requests\/s) — /);
    expect(r.all).toMatch(/^\[2 req\/s\] TTFT p50 /m);
    const res = resultOf(r.all);
    expect(res.serve.points.map((p: { shape: { ratePerS: number } }) => p.shape.ratePerS)).toEqual([2, 8]);
    // The knee is one of the three findings knee.ts names, the same sentence the run printed.
    expect(res.serve.knee.why).toMatch(/^(fewer than two valid rates with a measured throughput \(\d\)|from 2 to 8 requests\/s output throughput went [\d.]+ → [\d.]+ tokens\/s|throughput still grew with the rate up to 8 requests\/s)/);
    expect([null, 2]).toContain(res.serve.knee.ratePerS);
    expect(r.all).toContain(` — ${res.serve.knee.why}`);
    expect(Object.keys(res.quantities)).toEqual(expect.arrayContaining(['2rps.ttftP50', '8rps.outputTokenThroughput']));
    // The server was started once: one load time, one server log.
    expect(readFileSync(join(runDirOf(r.all), 'server.log'), 'utf8').match(/main: server is listening/g)?.length ?? 1).toBe(1);
    if (res.quantities['2rps.ttftP50'].status === 'measured' && res.quantities['8rps.ttftP50'].status === 'measured') {
      expect(readFileSync(join(runDirOf(r.all), 'serve-sweep.svg'), 'utf8')).toMatch(/^<svg /);
    }
  }, 300_000);
});

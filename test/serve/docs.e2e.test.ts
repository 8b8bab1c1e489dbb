import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { needsTitle } from '../helpers/needs.js';
import { CLI, LLAMA_NEED, llamaReady } from '../engines/llama.js';

// Every `npx nh-gate …` line of docs/serve.md, run in order against the CPU llama-server, with what it must print.
const DOC = readFileSync(join(repoRoot, 'docs', 'serve.md'), 'utf8');
const COMMANDS = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith('npx nh-gate '));

const EXPECT: Array<[RegExp, RegExp, number[]]> = [
  [/--concurrency 4 --requests 16/, /concurrency 4: 16 request\(s\), tokens 512\/512 → VALID[\s\S]*^goodput [\d.]+ requests\/s \(met the SLO[\s\S]*^VALID$/m, [0]],
  // A loaded host can make the client fall behind an open-loop schedule: INVALID (CLIENT_BEHIND) is a right answer.
  [/--rate 4 --requests 16 --seed 7/, /Poisson arrivals at 4 requests\/s \(seed 7\): 16 request\(s\), tokens 512\/512 → (VALID|INVALID)[\s\S]*^send lateness p99 /m, [0, 3]],
  [/--sweep 1,4,16/, /at 16 requests\/s \(seed 1\): 8 request\(s\), tokens 256\/256 →[\s\S]*knee: (not found|[\d.]+ requests\/s) — /, [0, 3]],
  [/--rate 2 --concurrency 2/, /option '--rate <r>' cannot be used with option '--concurrency <c>'/, [2]],
  [/threads-serve-ab\.json --dry-run/, /^each leg: one load \(concurrency 2, at least 8 request\(s\)[^\n]*every response token-checked$/m, [0]],
  // The word is the interval's on a shared host; every leg's tokens are checked whatever it is (refutationFails false: 0, UNRESOLVED 3).
  // Each leg's line and the tables show the load's figures (requests, TTFT, TPOT, throughput), not a driver's.
  [/threads-serve-ab\.json --export-csv/, /leg 4\/4 \[A2 THREADS=1\]: STRICT PASS — 256\/256 tokens, 8\/8 requests finished, TTFT p50 [\d.]+ s, TTFT p99 [\d.]+ s, TPOT p50 [\d.]+ s, ITL p50 [\d.]+ s, E2E p50 [\d.]+ s, [\d.]+ output tokens\/s, [\d.]+ requests\/s, goodput [\d.]+ requests\/s, [\d.]+ s$[\s\S]*^leg +arm +tokens +requests ok\/total +TTFT p50 \[s\][\s\S]*^requests ok\/total +B +2 +16\/16 \(sum over legs\)[\s\S]*^TPOT p50 \[s\] +A +2 +[\d.]+ ± [\d.]+[\s\S]*^(SUPPORTED|REFUTED|UNRESOLVED) \(2 criteria combined by 'all'/m, [0, 3]],
];

describe.skipIf(!llamaReady)(needsTitle('docs/serve.md: every example runs', LLAMA_NEED), () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-gate-serve-doc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the page has the examples this test checks', () => {
    expect(COMMANDS.length).toBe(EXPECT.length);
    for (const [pattern] of EXPECT) expect(COMMANDS.some((c) => pattern.test(c)), String(pattern)).toBe(true);
  });

  it('runs them with the documented results', async () => {
    // The page's earlier commands made .nh-gate (the default results folder) for a user; here they wrote elsewhere.
    const exported = join(repoRoot, '.nh-gate', 'serve-ab.csv');
    mkdirSync(dirname(exported), { recursive: true });
    rmSync(exported, { force: true });
    for (const line of COMMANDS) {
      // The examples quote nothing: words split on spaces.
      const [, , ...args] = line.trim().split(/\s+/);
      const r = await execa('node', [CLI, ...args, '--results-dir', join(dir, 'res')], { cwd: repoRoot, reject: false, all: true, timeout: 300_000, env: { ...process.env, NH_GATE_LOCK: join(dir, 'lock') } });
      const exp = EXPECT.find(([p]) => p.test(line))!;
      expect(exp[2], `${line}\n${r.all}`).toContain(r.exitCode);
      expect(r.all, line).toMatch(exp[1]);
    }
    // The A/B's export took the serve column set: requests and the load's figures, units in the names.
    const [head, ...rows] = readFileSync(exported, 'utf8').trim().split('\r\n');
    expect(head).toMatch(/^row,leg,arm,label,mode,verdict,witness,warmup,legs,tokens_compared,tokens_matched,requests_ok,requests_total,duration_s,load_window_s,ttft_p50_s,/);
    expect(head).not.toContain('s_per_token');
    expect(rows.map((x) => x.split(',').slice(0, 3).join(','))).toEqual(['leg,1,A', 'leg,2,B', 'leg,3,B', 'leg,4,A', 'arm,,A', 'arm,,B']);
    rmSync(exported, { force: true });
  }, 900_000);
});

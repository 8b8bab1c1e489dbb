import { mkdtempSync, readFileSync, symlinkSync, cpSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { CLI, LLAMA_NEED, llamaReady } from './llama.js';
import { needsTitle } from '../helpers/needs.js';
import { expectLegLogsAgree } from '../helpers/legLogs.js';
import { splitWords } from '../helpers/words.js';

// Every `npx nh-gate …` line of docs/engines.md, run in order in a scratch directory that links to this
// repository (its goldens/ is a copy, so `golden accept` cannot touch the committed ones).
const DOC = readFileSync(join(repoRoot, 'docs', 'engines.md'), 'utf8');
const COMMANDS = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n')).filter((l) => l.startsWith('npx nh-gate '));


// What each documented command must print (and exit with), so an example that silently changes goes red.
const EXPECT: Array<[RegExp, RegExp, number[]]> = [
  [/--oracle-cmd/, /independent of the engine[\s\S]*STAGED, not accepted/, [0]],
  // a re-capture that matches the copy's committed golden is UNCHANGED and keeps its bytes; a new one is ACCEPTED
  [/golden accept llama-cpp-tiny$/, /(ACCEPTED|UNCHANGED) .*goldens\/llama-cpp-tiny\/golden\.json/, [0]],
  [/capture --recipe llama-cpp/, /REGRESSION golden/, [0]],
  // the default output: the leg's one line as it ends (harness-witnessed: no "(engine's claim)"), the verdict last
  [/a3 --recipe llama-cpp$/, /^leg 1\/1 \[a3 decode\]: STRICT PASS — 128\/128 tokens, [\d.]+ s\/token, [\d.]+ tokens\/s, [\d.]+ s$[\s\S]*^STRICT PASS$/m, [0]],
  // --verbose: the leg's full block, as the guide lists it. On a loaded host several streamed tokens can share
  // one arrival stamp: the harness's after-the-first figure is then refused by name and has no ratio beside it.
  [/a3 --recipe llama-cpp --verbose$/, /tokens 128\/128 over 4 prompt\(s\).*from events\) → STRICT PASS\n {2}engine said nothing \(exit 0\): agrees with the harness\n[\s\S]*^ {2}per output token after the first \(harness, token arrival stamps\) (\d[^\n]*\n {2}per output token after the first \(the engine's own timer\) \d[\s\S]*^ {2}harness \/ engine timer \(per token after the first\) \d|REFUSED \(ARRIVALS_COLLAPSED\)[^\n]*\n {2}per output token after the first \(the engine's own timer\) \d)/m, [0]],
  [/a3 --recipe llama-cpp --golden llama-cpp-tiny-regression/, /STRICT PASS[\s\S]*REGRESSION golden/, [0]],
  [/NO_CUDA_GRAPHS --dry-run/, /arm A \(NO_CUDA_GRAPHS=off\) environment: GGML_CUDA_DISABLE_GRAPHS UNSET[\s\S]*arm B \(NO_CUDA_GRAPHS=on\) environment: GGML_CUDA_DISABLE_GRAPHS=1/, [0]],
  // each leg's line, the leg table, the ratio; no gate, so nothing is judged
  [/THREADS=1,2/, /^leg 1\/2 \[A1 THREADS=1\]: STRICT PASS — 128\/128 tokens[\s\S]*^leg 2\/2 \[B1 THREADS=2\]: STRICT PASS — 128\/128 tokens[\s\S]*^leg +arm +tokens +s\/token[\s\S]*^per output token ratio B\/A [\s\S]*^MEASURED — NO_CLAIM: no claim was registered/m, [0]],
  // one leg per arm is too few for an interval: the gate's verdict is UNRESOLVED (exit 3)
  [/flash-attn-ab/, /^leg 1\/2 \[A1 FLASH_ATTN=off\]: STRICT PASS — 128\/128 tokens[\s\S]*^leg 2\/2 \[B1 FLASH_ATTN=on\]: STRICT PASS — 128\/128 tokens[\s\S]*^UNRESOLVED \(superiority of perOutputToken: [^\n]*\) — CRITERION: ratio: n too small: 1 and 1 token-gated legs per arm[^\n]*; DEVIATION: --repeats 1 departs from the gate's registered repeats 3$/m, [3]],
];

describe.skipIf(!llamaReady)(needsTitle('docs/engines.md: every example runs', LLAMA_NEED), () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-gate-engines-doc-'));
  for (const d of ['recipes', 'oracles', 'drivers', 'profiles', 'scripts', '.cache', 'gates']) symlinkSync(join(repoRoot, d), join(dir, d));
  cpSync(join(repoRoot, 'goldens'), join(dir, 'goldens'), { recursive: true });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the guide has the examples this test checks', () => {
    expect(COMMANDS.length).toBe(EXPECT.length);
    for (const [pattern] of EXPECT) expect(COMMANDS.some((c) => pattern.test(c)), String(pattern)).toBe(true);
  });

  it('runs them in order with the documented results', async () => {
    for (const line of COMMANDS) {
      const [, , ...args] = splitWords(line);
      const r = await execa('node', [CLI, ...args], { cwd: dir, reject: false, all: true, timeout: 300_000 });
      const exp = EXPECT.find(([p]) => p.test(line));
      expect(exp, `no expectation for: ${line}`).toBeDefined();
      expect(exp![2], `${line}\n${r.all}`).toContain(r.exitCode);
      expect(r.all, line).toMatch(exp![1]);
    }
    expect(existsSync(join(dir, 'goldens', 'llama-cpp-tiny', 'golden.json'))).toBe(true);
    // The accepted capture is the committed golden, token for token.
    const accepted = JSON.parse(readFileSync(join(dir, 'goldens', 'llama-cpp-tiny', 'golden.json'), 'utf8'));
    const committed = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'llama-cpp-tiny', 'golden.json'), 'utf8'));
    expect(accepted.prompts.map((p: { tokens: number[] }) => p.tokens)).toEqual(committed.prompts.map((p: { tokens: number[] }) => p.tokens));
    // analyze of every leg log the guide's runs wrote says what its leg said
    expect(await expectLegLogsAgree([join(dir, '.nh-gate')])).toBeGreaterThan(0);
  }, 900_000);
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { CLI, LLAMA_BUILD, LLAMA_NEED, llamaReady } from '../engines/llama.js';
import { needsTitle } from '../helpers/needs.js';
import { expectLegLogsAgree } from '../helpers/legLogs.js';
import { splitWords } from '../helpers/words.js';

// docs/own-model.md, run as written in a scratch project: nh-gate linked in as node_modules/nh-gate (what
// `npm install ../nh-gate` makes), llama.cpp/ and the build folder linked to this repository's llama.cpp
// build (scripts/ci/llama-cpp.sh), and "your model" an 8-layer llama GGUF from make-tiny-gguf.py --preset small.
const DOC = readFileSync(join(repoRoot, 'docs', 'own-model.md'), 'utf8');
const block = (lang: string): string[] => [...DOC.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
const COMMANDS = block('sh').flatMap((b) => b.split('\n')).filter((l) => l.trim() !== '');

// What each command must print and exit with, so an example that silently changes goes red.
const EXPECT: Array<[RegExp, RegExp, number]> = [
  [/^npx nh-gate validate recipes\/my-llama\.json$/, /ok recipes\/my-llama\.json \(recipe\)/, 0],
  [/^npx nh-gate build --recipe my-llama$/, /BUILT/, 0],
  [/--tokenize prompts\.txt --out prompt-ids\.json$/, /3 prompt\(s\) tokenized -> prompt-ids\.json/, 0],
  [/--oracle-cmd/, /independent of the engine[\s\S]*STAGED, not accepted/, 0],
  [/^npx nh-gate golden accept my-model$/, /ACCEPTED .*goldens\/my-model\/golden\.json/, 0],
  [/capture --recipe my-llama .*--max-new 128/, /REGRESSION golden[\s\S]*STAGED/, 0],
  [/^npx nh-gate golden accept my-model-regression-128$/, /ACCEPTED .*goldens\/my-model-regression-128\/golden\.json/, 0],
  [/^npx nh-gate a3 --recipe my-llama --golden my-model$/, /^leg 1\/1 \[a3 decode\]: (STRICT|NEAR-TIE) PASS — 48\/48 tokens/m, 0],
  [/^npx nh-gate a3 --recipe my-llama --golden my-model-regression-128$/, /^leg 1\/1 \[a3 decode\]: STRICT PASS — 384\/384 tokens[\s\S]*is a REGRESSION golden[\s\S]*^STRICT PASS$/m, 0],
  [/--golden my-model --flag FLASH_ATTN --repeats 2$/, /\[A1 FLASH_ATTN=off\]: (STRICT|NEAR-TIE) PASS — 48\/48 tokens[\s\S]*\[B1 FLASH_ATTN=on\]: (STRICT|NEAR-TIE) PASS — 48\/48 tokens[\s\S]*^per output token ratio B\/A [\s\S]*^MEASURED/m, 0],
  [/--golden my-model-regression-128 --flag FLASH_ATTN --repeats 2$/, /\[A1 FLASH_ATTN=off\]: DIVERGENCE — 288\/384 tokens[^\n]*\n  prompt 0: first mismatch at position 39 [\s\S]*\[B1 FLASH_ATTN=on\]: STRICT PASS — 384\/384 tokens[\s\S]*^DIVERGENCE/m, 1],
];

describe.skipIf(!llamaReady)(needsTitle('docs/own-model.md: every example runs', LLAMA_NEED), () => {
  it('the page has the examples this test checks, in order', () => {
    expect(COMMANDS.length).toBe(EXPECT.length);
    COMMANDS.forEach((c, i) => expect(c, `command ${i + 1}`).toMatch(EXPECT[i]![0]));
  });

  it('runs them in a scratch project with the documented results, and analyze agrees with every leg', async () => {
    const project = join(mkdtempSync(join(tmpdir(), 'nh-own-model-')), 'my-project');
    for (const d of ['node_modules', 'build', 'models', 'recipes']) mkdirSync(join(project, d), { recursive: true });
    symlinkSync(repoRoot, join(project, 'node_modules', 'nh-gate'));
    symlinkSync(join(repoRoot, '.cache', 'llama.cpp', 'src'), join(project, 'llama.cpp'));
    symlinkSync(LLAMA_BUILD, join(project, 'build', 'llama-cpu'));
    const model = await execa('python3', [join(repoRoot, 'scripts', 'llama', 'make-tiny-gguf.py'), '--preset', 'small', '--check', '--out', join(project, 'models', 'my-model.gguf')], { reject: false, all: true });
    expect(model.exitCode, model.all).toBe(0);
    writeFileSync(join(project, 'prompts.txt'), block('text')[0]!);
    writeFileSync(join(project, 'recipes', 'my-llama.json'), block('json')[0]!);
    const env = { ...process.env, NH_GATE_LOCK: join(project, 'gpu.lock') };
    for (const [i, line] of COMMANDS.entries()) {
      const words = splitWords(line);
      const argv = words[0] === 'npx' ? [CLI, ...words.slice(2)] : words.slice(1);
      const r = await execa('node', argv, { cwd: project, reject: false, all: true, env, timeout: 1_200_000 });
      expect(r.exitCode, `${line}\n${r.all}`).toBe(EXPECT[i]![2]);
      expect(r.all, line).toMatch(EXPECT[i]![1]);
    }
    expect(existsSync(join(project, 'goldens', 'my-model-regression-128', 'golden.json'))).toBe(true);
    expect(await expectLegLogsAgree([join(project, '.nh-gate')])).toBe(10);
  }, 3_600_000);
});

#!/usr/bin/env node
// The harness's time per output token after the first (from per-token arrival stamps) against llama.cpp's
// own timer (`eval time = … ms / N tokens`, the first token excluded as llama.cpp does), on the SAME legs:
// each leg is a real `nh-gate a3 --recipe llama-cpp` run, and both figures come out of its result.json.
// The legs decode long prompts (a regression golden of --tokens tokens per prompt, captured from the engine
// into a scratch root first) so the windows reach a second. Prints one row per leg and the ratio.
// Usage: npm run build && scripts/ci/llama-cpp.sh && node bench/llama-timer.mjs [--legs N] [--tokens N] [--threads T] [--json]
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, d) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : d; };
const legs = opt('--legs', 4), tokens = opt('--tokens', 1500), threads = opt('--threads', 1);
const json = args.includes('--json');
const cli = join(root, 'bin', 'nh-gate.js');
const dir = mkdtempSync(join(tmpdir(), 'nh-llama-bench-'));
for (const d of ['recipes', 'oracles', 'drivers', 'profiles', 'scripts', '.cache']) symlinkSync(join(root, d), join(dir, d));
cpSync(join(root, 'goldens'), join(dir, 'goldens'), { recursive: true });
writeFileSync(join(dir, 'ids.json'), JSON.stringify([[99, 128, 104, 106], [114]]));
const env = { ...process.env, LLAMA_ARG_THREADS: String(threads) };

const cap = await execa('node', [cli, 'golden', 'capture', '--recipe', 'llama-cpp', '--prompt-ids', 'ids.json', '--name', 'bench-long', '--max-new', String(tokens), '--runs', '1'], { cwd: dir, env, reject: false, all: true });
if (cap.exitCode !== 0) { process.stderr.write(cap.all + '\n'); process.exit(1); }
await execa('node', [cli, 'golden', 'accept', 'bench-long'], { cwd: dir, env });

const rows = [];
for (let i = 0; i < legs; i++) {
  const r = await execa('node', [cli, 'a3', '--recipe', 'llama-cpp', '--golden', join(dir, 'goldens', 'bench-long'), '--results-dir', join(dir, 'res'), '--json'], { cwd: dir, env, reject: false });
  const res = JSON.parse(r.stdout);
  const q = res.legs[0].quantities;
  const h = q.perTokenAfterFirst, e = q.perTokenAfterFirstEngineTimer;
  if (h?.status !== 'measured' || e?.status !== 'measured') { rows.push({ leg: i + 1, verdict: res.legs[0].verdict, harness: h, engine: e }); continue; }
  const windowS = h.terms.windowS.value;
  rows.push({ leg: i + 1, verdict: res.legs[0].verdict, windowS, steps: h.terms.steps.value, harnessS: h.value, engineS: e.value, ratio: h.value / e.value, within2pct: Math.abs(h.value / e.value - 1) <= 0.02, counts: windowS >= 1 });
}
rmSync(dir, { recursive: true, force: true });
const long = rows.filter((r) => r.counts);
const summary = { legs: rows.length, windowsAtLeast1s: long.length, within2pct: long.filter((r) => r.within2pct).length, worstRatio: long.length ? long.map((r) => r.ratio).sort((a, b) => Math.abs(b - 1) - Math.abs(a - 1))[0] : null, threads, tokensPerPrompt: tokens };
if (json) process.stdout.write(JSON.stringify({ schemaVersion: 1, rows, summary }) + '\n');
else {
  console.log(`llama.cpp per output token after the first: harness (arrival stamps) vs llama.cpp's own timer; ${threads} thread(s), 2 prompts x ${tokens} tokens per leg`);
  console.log('leg  verdict       window_s  steps  harness_s     engine_s      harness/engine');
  for (const r of rows) {
    if (r.ratio === undefined) { console.log(`${r.leg}    ${r.verdict}  (a figure was refused: ${r.harness?.message ?? ''} ${r.engine?.message ?? ''})`); continue; }
    console.log(`${String(r.leg).padEnd(4)} ${r.verdict.padEnd(13)} ${r.windowS.toFixed(3).padStart(8)}  ${String(r.steps).padStart(5)}  ${r.harnessS.toFixed(9)}  ${r.engineS.toFixed(9)}  ${r.ratio.toFixed(4)}${r.counts ? (r.within2pct ? '  within 2%' : '  OUTSIDE 2%') : '  (window < 1 s: not counted)'}`);
  }
  console.log(`windows >= 1 s: ${summary.windowsAtLeast1s} of ${summary.legs}; within 2%: ${summary.within2pct} of ${summary.windowsAtLeast1s}; worst ratio ${summary.worstRatio === null ? 'n/a' : summary.worstRatio.toFixed(4)}`);
}

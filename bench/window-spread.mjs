#!/usr/bin/env node
// How stable is a llama.cpp A/B's ratio as the decode window grows? (figures, not a timed test; docs/own-model.md)
// For each decode length N (tokens per prompt): a regression golden of N tokens from the engine itself, then K
// A/A runs (--aa-flag, default FLASH_ATTN=off,off: both arms the same, the ratio's truth is 1) and K runs of a
// real flag (--ab-flag, default FLASH_ATTN=off,on), each `ab --repeats R`. On a shared CPU host, hold the
// thread count at 1 in the recipe's driver.env (LLAMA_ARG_THREADS): two llama.cpp threads on two busy cores
// spin at their barriers and a window reads 100x its idle length. Reports each leg's decode window, and per N the spread of the ratio over the K runs:
// min–max, the sd of its log, and how many A/A intervals excluded 1 (a "difference" that is noise).
// Usage: npm run build && node bench/window-spread.mjs [--recipe llama-cpp|FILE] [--lengths 32,128,512] [--runs K] [--repeats R]
//          [--aa-flag FLAG=V,V] [--ab-flag FLAG=A,B] [--prompt-ids FILE] [--project DIR] [--json]
// --project runs in a user's project (docs/own-model.md's: its recipes/, its model), goldens written under it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const recipe = opt('--recipe', 'llama-cpp');
const lengths = opt('--lengths', '32,128,512').split(',').map(Number);
const runs = Number(opt('--runs', '5'));
const repeats = Number(opt('--repeats', '2'));
const aaFlag = opt('--aa-flag', 'FLASH_ATTN=off,off');
const abFlag = opt('--ab-flag', 'FLASH_ATTN=off,on');
const json = args.includes('--json');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const promptIds = resolve(opt('--prompt-ids', join(root, 'oracles', 'prompts', 'llama-cpp-tiny.json')));
const nPrompts = JSON.parse(readFileSync(promptIds, 'utf8')).length;
const cli = join(root, 'bin', 'nh-gate.js');
const work = args.includes('--project') ? resolve(opt('--project')) : mkdtempSync(join(tmpdir(), 'nh-window-spread-'));
const env = { ...process.env, NH_GATE_LOCK: join(work, 'gpu.lock') };

function nh(argv, { allowFail = false } = {}) {
  try {
    return execFileSync(process.execPath, [cli, ...argv], { cwd: work, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
  } catch (err) {
    if (allowFail && typeof err.stdout === 'string' && err.stdout.trim().startsWith('{')) return err.stdout;
    throw new Error(`nh-gate ${argv.join(' ')} failed (exit ${err.status}): ${String(err.stderr).slice(-800)}`);
  }
}

const sd = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, xs.length - 1));
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN; };

// One `ab` run: the ratio, its interval, each leg's decode window and the host's load while it ran.
function abRun(golden, flag) {
  const load0 = loadavg()[0];
  const doc = JSON.parse(nh(['ab', '--recipe', recipe, '--golden', golden, '--flag', flag, '--repeats', String(repeats), '--results-dir', join(work, 'res'), '--json'], { allowFail: true }));
  const q = doc.quantities?.ratio;
  const windows = doc.legs.map((l) => (l.decodeWindow ? l.decodeWindow.endS - l.decodeWindow.startS : null)).filter((w) => w !== null);
  const ci = doc.comparison?.ci ?? null;
  return { verdict: doc.verdict.word, ratio: q?.status === 'measured' ? q.value : null, lo: ci?.lo ?? null, hi: ci?.hi ?? null, windows, load: (load0 + loadavg()[0]) / 2 };
}

const rows = [];
for (const n of lengths) {
  const name = `spread-${n}`;
  nh(['golden', 'capture', '--recipe', recipe, '--prompt-ids', join(root, 'oracles', 'prompts', 'llama-cpp-tiny.json'), '--name', name, '--max-new', String(n), '--runs', '1', '--root', work]);
  nh(['golden', 'accept', name, '--root', work]);
  const golden = join(work, 'goldens', name);
  for (const [kind, flag] of [['A/A', aaFlag], ['A/B', abFlag]]) {
    const rs = [];
    for (let k = 0; k < runs; k++) {
      const r = abRun(golden, flag);
      rs.push(r);
      if (!json) process.stderr.write(`N=${n} ${kind} run ${k + 1}: ratio ${r.ratio?.toFixed(3) ?? r.verdict} [${r.lo?.toFixed(3)}, ${r.hi?.toFixed(3)}], windows ${r.windows.map((w) => w.toFixed(2)).join(' ')} s, load ${r.load.toFixed(1)}\n`);
    }
    const ratios = rs.map((r) => r.ratio).filter((x) => x !== null);
    const ws = rs.flatMap((r) => r.windows);
    rows.push({
      tokensPerPrompt: n, kind, runs: rs.length, measured: ratios.length,
      windowS: { median: median(ws), min: Math.min(...ws), max: Math.max(...ws) },
      ratio: { min: Math.min(...ratios), max: Math.max(...ratios), sdLog: sd(ratios.map(Math.log)) },
      intervalsExcluding1: rs.filter((r) => r.lo !== null && (r.lo > 1 || r.hi < 1)).length,
      loadAvg: median(rs.map((r) => r.load)),
      runsDetail: rs,
    });
  }
}

if (json) process.stdout.write(JSON.stringify({ recipe, repeats, runs, rows }, null, 2) + '\n');
else {
  process.stdout.write(`recipe ${recipe}; ab --repeats ${repeats}; ${runs} runs per cell; ${nPrompts} prompts per leg; A/A ${aaFlag}, A/B ${abFlag}\n`);
  process.stdout.write('| tokens/prompt | A/B | leg decode window, median (min–max) | ratio min–max | sd of ln ratio | intervals excluding 1 | load avg |\n|---|---|---|---|---|---|---|\n');
  for (const r of rows) {
    process.stdout.write(`| ${r.tokensPerPrompt} | ${r.kind} | ${r.windowS.median.toFixed(2)} s (${r.windowS.min.toFixed(2)}–${r.windowS.max.toFixed(2)}) | ${r.ratio.min.toFixed(3)}–${r.ratio.max.toFixed(3)} | ${r.ratio.sdLog.toFixed(3)} | ${r.intervalsExcluding1}/${r.measured} | ${r.loadAvg.toFixed(1)} |\n`);
  }
}

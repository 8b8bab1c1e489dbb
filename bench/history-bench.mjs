#!/usr/bin/env node
// `nh-gate history` over a generated 100,000-line ledger (4 series on 2 silicon keys, one planted step):
// wall time of the whole CLI (read, fit, plots, print) and of the pure part, with the step it found.
// Target: under 2 s. Usage: npm run build && node bench/history-bench.mjs [--lines N] [--json]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { syntheticLedger, ledgerText } from '../dist/history/synthetic.js';
import { parseLedger } from '../dist/results/ledgerRead.js';
import { historyReport } from '../dist/history/report.js';

const args = process.argv.slice(2);
const lines = args.includes('--lines') ? Number(args[args.indexOf('--lines') + 1]) : 100_000;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'nh-histbench-'));
const per = lines / 4;
const S = (gate, siliconKey, steps) => ({ gate, siliconKey, base: 1, relSd: 0.01, steps, withInterval: true });
const text = ledgerText(syntheticLedger(lines, [
  S('decode', 'gpu:NVIDIA H200|cc9.0', [{ at: Math.floor(per * 0.7), factor: 1.03 }]),
  S('decode', 'gpu:NVIDIA GB10|cc12.1', []),
  S('busy', 'gpu:NVIDIA H200|cc9.0', []),
  S('busy', 'gpu:NVIDIA GB10|cc12.1', []),
], 11));
writeFileSync(join(dir, 'ledger.jsonl'), text);

const t0 = process.hrtime.bigint();
const { report } = historyReport(parseLedger(readFileSync(join(dir, 'ledger.jsonl'), 'utf8')), {}, 'lower');
const pureS = Number(process.hrtime.bigint() - t0) / 1e9;

// Wall time, and CPU time (user + sys, from /usr/bin/time where present): on a shared, loaded machine the
// CPU time is the figure that does not depend on how many other processes wanted the cores.
const times = [];
const cpu = [];
let out = '';
const timeBin = existsSync('/usr/bin/time');
const cpuFile = join(dir, 'cpu.txt');
for (let i = 0; i < 3; i++) {
  const t = process.hrtime.bigint();
  const cmd = [join(root, 'bin', 'nh-gate.js'), 'history', '--results-dir', dir, '--json'];
  try {
    out = execFileSync(timeBin ? '/usr/bin/time' : 'node', timeBin ? ['-o', cpuFile, '-f', '%U %S', 'node', ...cmd] : cmd, { maxBuffer: 1 << 28 }).toString();
  } catch (e) {
    out = e.stdout.toString(); // exit 1: the planted step is a regression
  }
  times.push(Number(process.hrtime.bigint() - t) / 1e9);
  if (timeBin) cpu.push(readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1).split(' ').map(Number).reduce((a, b) => a + b, 0));
}
const doc = JSON.parse(out);
const found = doc.series.map((s) => `${s.gate}/${s.siliconKey}: ${s.changePoints.map((c) => `step at point ${c.index} (${c.relPct.toFixed(2)}%)`).join(', ') || 'no step'}`);
const res = { schemaVersion: 1, lines, bytes: text.length, pureSeconds: pureS, cliSeconds: times, cliBestSeconds: Math.min(...times), cliCpuSeconds: cpu, loadAverage1m: loadavg()[0], plantedAt: Math.floor(per * 0.7), found, verdict: doc.verdict.word, series: report.series.length };
if (args.includes('--json')) process.stdout.write(JSON.stringify(res, null, 2) + '\n');
else {
  console.log(`history over ${lines} ledger lines (${(text.length / 1e6).toFixed(1)} MB): CLI ${times.map((t) => t.toFixed(2)).join(' / ')} s (best ${res.cliBestSeconds.toFixed(2)} s, target < 2 s)${cpu.length ? `, CPU ${cpu.map((t) => t.toFixed(2)).join(' / ')} s` : ''}; pure read+fit ${pureS.toFixed(2)} s; load average ${res.loadAverage1m.toFixed(1)}`);
  console.log(`planted: +3% at point ${res.plantedAt} of decode/H200; found: ${found.join('; ')}; verdict ${res.verdict}`);
}

#!/usr/bin/env node
// Issue 15: peak RSS and wall of a live leg against the size of the engine's output, beside `nh-gate
// analyze` of the very log that leg wrote (the same bytes, timestamps included). Flat memory: the live
// leg's peak does not grow with the output. Run after `npm run build`.
//   node bench/flood.mjs            10 MB and 100 MB
//   NH_GATE_FLOOD_1GB=1 node bench/flood.mjs   also 1 GB (about 20 s per leg here, and 1.1 GB of disk)
// Peak RSS is /usr/bin/time -f %M (KiB), the figure the issue was filed with.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { floodRepo } from './flood-repo.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');
const TIME = '/usr/bin/time';
const sizesMB = [10, 100, ...(process.env.NH_GATE_FLOOD_1GB === '1' ? [1000] : [])];

function timed(argv, env) {
  const dir = mkdtempSync(join(tmpdir(), 'nh-flood-time-'));
  const out = join(dir, 'time.txt');
  const r = spawnSync(TIME, ['-o', out, '-f', '%M %e', process.execPath, BIN, ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const [kib, wall] = readFileSync(out, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  rmSync(dir, { recursive: true, force: true });
  return { code: r.status, peakMiB: kib / 1024, wallS: wall, stderr: r.stderr };
}

if (!existsSync(TIME)) {
  console.error(`bench/flood.mjs needs ${TIME} (apt-get install time)`);
  process.exit(2);
}
const rows = [];
for (const mb of sizesMB) {
  const repo = floodRepo({ FLOOD_BYTES: String(mb * 1_000_000) });
  const results = mkdtempSync(join(tmpdir(), 'nh-flood-runs-'));
  const leg = timed(['a3', '--recipe', repo.recipePath, '--results-dir', results], { NH_GATE_LOCK: join(results, 'gpu.lock') });
  if (leg.code !== 0) throw new Error(`a3 on ${mb} MB exited ${leg.code}: ${leg.stderr}`);
  const runDir = join(results, 'runs', readdirSync(join(results, 'runs'))[0]);
  const log = join(runDir, 'legs', 'leg-01-decode.log');
  const logMB = statSync(log).size / 1e6;
  const an = timed(['analyze', '--log', log, '--json'], {});
  rows.push({ outputMB: mb, logMB, leg, analyze: an });
  rmSync(results, { recursive: true, force: true });
  rmSync(repo.root, { recursive: true, force: true });
}
if (process.argv.includes('--json')) console.log(JSON.stringify({ schemaVersion: 1, rows: rows.map(({ leg, analyze, ...r }) => ({ ...r, leg: { peakMiB: leg.peakMiB, wallS: leg.wallS }, analyze: { peakMiB: analyze.peakMiB, wallS: analyze.wallS, exitCode: analyze.code } })) }));
else {
  console.log('engine output   leg log    live leg (a3): peak RSS, wall    analyze of that log: peak RSS, wall');
  for (const r of rows) console.log(`${String(r.outputMB).padStart(8)} MB  ${r.logMB.toFixed(0).padStart(7)} MB    ${r.leg.peakMiB.toFixed(1).padStart(8)} MiB ${r.leg.wallS.toFixed(2).padStart(7)} s    ${r.analyze.peakMiB.toFixed(1).padStart(8)} MiB ${r.analyze.wallS.toFixed(2).padStart(7)} s`);
}

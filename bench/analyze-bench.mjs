#!/usr/bin/env node
// Benchmarks for issue #2 (run after `npm run build`):
//   1. `nh-gate analyze` streaming a generated ~100 MB driver log: wall time and peak RSS, beside a ~10 MB log
//      (flat memory = the peak does not grow with the log).
//   2. `nh-gate --help` cold start against `node -e 0`, interleaved repeats, medians and their ratio.
// Each figure is printed beside issue 25's round-2 value, with the load average before and after.
// --against DIR: the same runs, interleaved, of another built checkout's bin/nh-gate.js (e.g. main's, in a
// git worktree after `npm ci`), printed as a "before" beside each figure: on a shared machine whose speed
// drifts between minutes, only runs interleaved in one sitting compare.
// Usage: node bench/analyze-bench.mjs [--mb 100] [--repeats 20] [--against DIR] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenCpuS } from './cpu.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const MB = opt('mb', 100);
const REPEATS = opt('repeats', 20);
const JSON_OUT = args.includes('--json');
const AGAINST = args.includes('--against') ? join(args[args.indexOf('--against') + 1], 'bin', 'nh-gate.js') : null;
// Each binary measured: this checkout's ('now'), and the --against one ('before').
const BINS = AGAINST ? [['now', BIN], ['before', AGAINST]] : [['now', BIN]];
// Issue 25's round-2 figures (quiet 2-core machine, load < 1, main 269730e), printed beside this run's.
const ROUND2 = { bigWallS: 2.32, bigCpuS: 2.75, bigPeakMiB: 177, smallWallS: 0.7, coldRatio: 1.58 };

// A leg log in nh-gate's stored shape: arrival seconds TAB engine line; prompt rows, ARM counters, got/exp, noise.
async function writeLog(file, targetBytes) {
  const out = createWriteStream(file);
  let bytes = 0;
  let t = 0;
  let block = 0;
  const put = (line) => {
    t += 0.001;
    const s = `${t.toFixed(6)}\t${line}\n`;
    bytes += s.length;
    return out.write(s) ? Promise.resolve() : new Promise((r) => out.once('drain', r));
  };
  await put('[nemotron-h] libvllm 0.0.3+cuda (ABI 21, header 21)');
  await put('[nemotron-h] engine loaded in 254.5s');
  while (bytes < targetBytes) {
    for (let p = 0; p < 64; p++) {
      for (let s = 0; s < 32; s++) {
        await put(`ARM step T=1 nd=1 np=0 state_update_rows=23 chunk_scan_calls=0 conv_update_rows=23 conv_fwd_calls=0 gathers=0 scatters=${s % 2}`);
        if (s % 8 === 0) await put(`[trace] layer ${s} |conv|=310.374 |ssm|=3985.8 step ${p}`);
      }
      await put(`[nemotron-h] prompt ${p}: prompt_tokens=${5 + (p % 9)}  generated=32 golden_width=32 compared=32 matched=32 wall=3.21s`);
    }
    await put(`[nemotron-h] TOKEN MATCH: ${64 * 32}/${64 * 32} over 64 prompt(s) (full rows=64, short rows=0, mode=decode)`);
    await put('[nemotron-h] STRICT PASS');
    block++;
  }
  await new Promise((r) => out.end(r));
  return { bytes: statSync(file).size, blocks: block };
}

// Runs a command, polling /proc/<pid>/status for VmHWM (peak RSS) until it exits.
function runMeasured(cmd, argv) {
  return new Promise((resolvePromise) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let peakKiB = 0;
    const c0 = childrenCpuS(); // the child's utime + stime once reaped: what the run cost, whatever else loads the box
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
      } catch {
        /* exited */
      }
    }, 10);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolvePromise({ code, wallS: Number(process.hrtime.bigint() - t0) / 1e9, cpuS: childrenCpuS() - c0, peakMiB: peakKiB / 1024, stderr });
    });
  });
}

function timedRun(cmd, argv) {
  const c0 = childrenCpuS();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}`);
  return { wallS: Number(process.hrtime.bigint() - t0) / 1e9, cpuS: childrenCpuS() - c0 };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const dir = mkdtempSync(join(tmpdir(), 'nhg-bench-'));
const results = { machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg() }, round2: ROUND2 };
try {
  const big = join(dir, 'big.log');
  const small = join(dir, 'small.log');
  const gBig = await writeLog(big, MB * 1024 * 1024);
  const gSmall = await writeLog(small, (MB / 10) * 1024 * 1024);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    for (const [name, file, g] of [['big', big, gBig], ['small', small, gSmall]]) {
      for (const [who, bin] of BINS) {
        const r = await runMeasured(process.execPath, [bin, 'analyze', '--log', file, '--json']);
        if (r.code !== 0) throw new Error(`${who}: analyze exited ${r.code}: ${r.stderr}`);
        runs.push({ who, name, bytes: g.bytes, ...r });
      }
    }
  }
  const node0 = [];
  const help = { now: [], before: [] };
  for (let i = 0; i < REPEATS; i++) {
    node0.push(timedRun(process.execPath, ['-e', '0']));
    for (const [who, bin] of BINS) help[who].push(timedRun(process.execPath, [bin, '--help']));
  }
  // CPU per run: the sum over the repeats (each read is in whole clock ticks, 10 ms) over the count.
  const cpuPerRun = (xs) => xs.reduce((a, x) => a + x.cpuS, 0) / xs.length;
  const wall = (xs) => median(xs.map((x) => x.wallS));
  for (const [who] of BINS) {
    const pick = (n) => runs.filter((r) => r.name === n && r.who === who);
    const h = help[who];
    results[who === 'now' ? 'analyze' : 'analyzeBefore'] = {
      big: { mb: gBig.bytes / 2 ** 20, medianWallS: median(pick('big').map((r) => r.wallS)), medianCpuS: median(pick('big').map((r) => r.cpuS)), medianPeakMiB: median(pick('big').map((r) => r.peakMiB)), wallS: pick('big').map((r) => r.wallS) },
      small: { mb: gSmall.bytes / 2 ** 20, medianWallS: median(pick('small').map((r) => r.wallS)), medianCpuS: median(pick('small').map((r) => r.cpuS)), medianPeakMiB: median(pick('small').map((r) => r.peakMiB)) },
    };
    results[who === 'now' ? 'coldStart' : 'coldStartBefore'] = { repeats: REPEATS, nodeMedianS: wall(node0), helpMedianS: wall(h), ratio: wall(h) / wall(node0), nodeCpuS: cpuPerRun(node0), helpCpuS: cpuPerRun(h), cpuRatio: cpuPerRun(h) / cpuPerRun(node0) };
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (JSON_OUT) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
else {
  const a = results.analyze;
  const c = results.coldStart;
  console.log(`machine: ${results.machine.cpus} cpus, node ${results.machine.node}, loadavg ${results.machine.loadavg.map((x) => x.toFixed(2)).join(' ')} (before), ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (after)`);
  console.log(`analyze ${a.big.mb.toFixed(1)} MB — round 2: ${ROUND2.bigWallS} s wall; now: ${a.big.medianWallS.toFixed(3)} s wall, ${a.big.medianCpuS.toFixed(2)} s CPU; goal: < 1.0 s wall, flat memory`);
  console.log(`analyze ${a.big.mb.toFixed(1)} MB: median ${a.big.medianWallS.toFixed(3)} s wall (runs ${a.big.wallS.map((x) => x.toFixed(3)).join(', ')}), CPU ${a.big.medianCpuS.toFixed(2)} s, peak RSS ${a.big.medianPeakMiB.toFixed(1)} MiB   (round 2: ${ROUND2.bigWallS} s wall, ${ROUND2.bigCpuS} s CPU, ${ROUND2.bigPeakMiB} MiB; goal < 1.0 s wall)`);
  console.log(`analyze ${a.small.mb.toFixed(1)} MB: median ${a.small.medianWallS.toFixed(3)} s wall, CPU ${a.small.medianCpuS.toFixed(2)} s, peak RSS ${a.small.medianPeakMiB.toFixed(1)} MiB  (flat memory: peak ratio ${(a.big.medianPeakMiB / a.small.medianPeakMiB).toFixed(2)} for 10x the bytes; round 2: ${ROUND2.smallWallS} s wall)`);
  console.log(`cold start (${c.repeats} interleaved repeats): node -e 0 median ${(c.nodeMedianS * 1000).toFixed(1)} ms wall, ${(c.nodeCpuS * 1000).toFixed(0)} ms CPU; nh-gate --help median ${(c.helpMedianS * 1000).toFixed(1)} ms wall, ${(c.helpCpuS * 1000).toFixed(0)} ms CPU`);
  console.log(`cold start ratio — round 2: ${ROUND2.coldRatio}x; now: ${c.ratio.toFixed(2)}x wall, ${c.cpuRatio.toFixed(2)}x CPU; goal: ≤ 1.5x`);
  const b = results.analyzeBefore;
  const cb = results.coldStartBefore;
  if (b) {
    console.log(`before (${AGAINST}, interleaved with the runs above):`);
    console.log(`analyze ${b.big.mb.toFixed(1)} MB — before: ${b.big.medianWallS.toFixed(3)} s wall, ${b.big.medianCpuS.toFixed(2)} s CPU, peak RSS ${b.big.medianPeakMiB.toFixed(1)} MiB; now: ${a.big.medianWallS.toFixed(3)} s wall, ${a.big.medianCpuS.toFixed(2)} s CPU, peak RSS ${a.big.medianPeakMiB.toFixed(1)} MiB`);
    console.log(`analyze ${b.small.mb.toFixed(1)} MB — before: ${b.small.medianWallS.toFixed(3)} s wall, ${b.small.medianCpuS.toFixed(2)} s CPU; now: ${a.small.medianWallS.toFixed(3)} s wall, ${a.small.medianCpuS.toFixed(2)} s CPU`);
    console.log(`cold start — before: ${(cb.helpMedianS * 1000).toFixed(1)} ms wall, ${(cb.helpCpuS * 1000).toFixed(0)} ms CPU (${cb.ratio.toFixed(2)}x wall, ${cb.cpuRatio.toFixed(2)}x CPU); now: ${(c.helpMedianS * 1000).toFixed(1)} ms wall, ${(c.helpCpuS * 1000).toFixed(0)} ms CPU (${c.ratio.toFixed(2)}x wall, ${c.cpuRatio.toFixed(2)}x CPU)`);
  }
}

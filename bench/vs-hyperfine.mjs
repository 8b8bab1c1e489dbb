#!/usr/bin/env node
// nh-gate's 8-leg decode-step A/B beside hyperfine on the same two arms, in one run, interleaved
// (hyperfine, nh-gate, nh-gate, hyperfine, … so drift on a shared box hits both alike): each tool's wall time,
// its answer with its interval, the ratio of the wall times, the load average, and the round-2 figures
// (issue 25) beside them. hyperfine times whole processes (`-N -w 1 -r 8`: 1 + 8 runs of each arm, 18
// processes); nh-gate runs 8 token-gated legs and answers per output token.
// Usage: npm run build && node bench/vs-hyperfine.mjs [--rounds 2] [--json]
// Needs hyperfine on PATH and the reference engine built (`npx nh-gate build`, or any a3 run, first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childrenCpuS } from './cpu.mjs';
import { loadInputs } from '../dist/gates/setup.js';
import { buildVars } from '../dist/build/build.js';
import { expandArgv } from '../dist/build/template.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const GATE = 'gates/nh-ref/decode-step-ab.json';
const ROUND2 = { hyperfineS: 2.1, nhGateS: 2.75, hyperfineAnswer: '7.46× ± 0.15 (whole process, A/B)', nhGateAnswer: '0.054× [0.0523, 0.0604] (per token, B/A)' };
const args = process.argv.slice(2);
const rounds = Number(args[args.indexOf('--rounds') + 1] ?? 0) || 2;
const json = args.includes('--json');

const inputs = loadInputs({ command: 'a3' });
const vars = buildVars(inputs.recipe, inputs.root, 'cpu', 2);
const dir = mkdtempSync(join(tmpdir(), 'nh-vs-hyperfine-'));
const d = inputs.recipe.driver;
const flag = inputs.recipe.flags.MAMBA_DECODE_STEP;
const v = { ...vars, golden: inputs.goldenPath, events: join(dir, 'bare.events.jsonl'), runDir: dir };
const argv = [...expandArgv(d.argv, v, 'a'), ...expandArgv(d.goldenArgv, v, 'g'), ...expandArgv(d.eventsArgv, v, 'e'), ...expandArgv(d.modeArgv.decode ?? [], v, 'm')];
// hyperfine -N runs without a shell, so each arm's variable goes through env(1), as a shell would set it.
const arm = (value) => ['env', ...Object.entries({ ...d.env, [flag.env]: value }).map(([k, x]) => `${k}=${x}`), ...argv].join(' ');

function timed(cmd, cmdArgs) {
  const c0 = childrenCpuS();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, cmdArgs, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0 && !(cmd === process.execPath && r.status === 1)) throw new Error(`${cmd} ${cmdArgs.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wallS, cpuS: childrenCpuS() - c0, stdout: r.stdout };
}

function hyperfine(i) {
  const out = join(dir, `hyperfine-${i}.json`);
  const { wallS, cpuS } = timed('hyperfine', ['-N', '-w', '1', '-r', '8', '--style', 'none', '--export-json', out, '-n', 'A', arm(flag.off), '-n', 'B', arm(flag.on)]);
  const [a, b] = JSON.parse(readFileSync(out, 'utf8')).results;
  const ratio = b.mean / a.mean;
  const err = ratio * Math.hypot(a.stddev / a.mean, b.stddev / b.mean);
  return { tool: 'hyperfine', wallS, cpuS, ratio, lo: ratio - err, hi: ratio + err, answer: `B/A ${ratio.toFixed(4)}× ± ${err.toFixed(4)} (whole process, mean ± σ propagated; A ${a.mean.toFixed(3)} s, B ${b.mean.toFixed(3)} s)` };
}

function nhGate() {
  const { wallS, cpuS, stdout } = timed(process.execPath, [join(ROOT, 'bin', 'nh-gate.js'), 'ab', '--gate', GATE, '--results-dir', dir, '--json']);
  const r = JSON.parse(stdout);
  // The typed comparison: the per-token criterion's estimate and its interval.
  const m = r.comparison?.metrics?.find((x) => x.metric === 'perOutputToken');
  const ci = m?.interval && m.estimate?.status === 'measured' ? { estimate: m.estimate.value, lo: m.interval.lo, hi: m.interval.hi } : null;
  if (!ci) throw new Error(`nh-gate ab gave no interval: ${r.verdict?.word} ${(r.verdict?.reasons ?? []).map((x) => `${x.code}: ${x.message}`).join('; ')}`);
  return { tool: 'nh-gate', wallS, cpuS, legs: r.legs.length, ratio: ci.estimate, lo: ci.lo, hi: ci.hi, answer: `B/A ${ci.estimate.toFixed(4)}× [${ci.lo.toFixed(4)}, ${ci.hi.toFixed(4)}] (per output token, ${r.legs.length} legs, ${r.verdict.word})` };
}

const load0 = loadavg();
const runs = [];
try {
  for (let i = 0; i < rounds; i++) for (const which of i % 2 === 0 ? ['h', 'n'] : ['n', 'h']) runs.push(which === 'h' ? hyperfine(i) : nhGate());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const load1 = loadavg();
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const of = (tool) => runs.filter((r) => r.tool === tool);
const hS = med(of('hyperfine').map((r) => r.wallS));
const nS = med(of('nh-gate').map((r) => r.wallS));
const hCpuS = med(of('hyperfine').map((r) => r.cpuS));
const nCpuS = med(of('nh-gate').map((r) => r.cpuS));
const result = { rounds, loadavgBefore: load0, loadavgAfter: load1, hyperfineMedianS: hS, nhGateMedianS: nS, ratio: nS / hS, hyperfineCpuMedianS: hCpuS, nhGateCpuMedianS: nCpuS, cpuRatio: nCpuS / hCpuS, round2: ROUND2, runs };
if (json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
else {
  const la = (l) => l.map((x) => x.toFixed(2)).join(' ');
  console.log(`load average before ${la(load0)}, after ${la(load1)}; ${rounds} round(s), interleaved`);
  for (const r of runs) console.log(`  ${r.tool.padEnd(9)} ${r.wallS.toFixed(2)} s wall, ${r.cpuS.toFixed(2)} s CPU  ${r.answer}`);
  console.log(`wall, median of ${rounds}: hyperfine -N -w 1 -r 8 ${hS.toFixed(2)} s, nh-gate ab (8 legs) ${nS.toFixed(2)} s → nh-gate/hyperfine ${(nS / hS).toFixed(2)}×   (round 2: ${ROUND2.hyperfineS.toFixed(2)} s vs ${ROUND2.nhGateS.toFixed(2)} s → ${(ROUND2.nhGateS / ROUND2.hyperfineS).toFixed(2)}×)`);
  console.log(`CPU, median of ${rounds} (each tool and the engine runs it started): hyperfine ${hCpuS.toFixed(2)} s, nh-gate ${nCpuS.toFixed(2)} s → ${(nCpuS / hCpuS).toFixed(2)}×`);
  console.log(`nh-gate/hyperfine wall — round 2: ${(ROUND2.nhGateS / ROUND2.hyperfineS).toFixed(2)}×; now: ${(nS / hS).toFixed(2)}× wall (${(nCpuS / hCpuS).toFixed(2)}× CPU); goal: < 1×`);
  console.log(`answers (round 2): hyperfine ${ROUND2.hyperfineAnswer}; nh-gate ${ROUND2.nhGateAnswer}`);
}

#!/usr/bin/env node
// Sequential A/B against fixed-N, by simulation and on the reference engine (figures, not a timed test).
//   Simulation: per-block log ratios ~ N(θ, σ²); criterion "at least 1% less time per token"; true
//   effects 3% and 10%; the A/A cell (θ = 0) and the boundary cell (θ = the criterion) for type I.
//   Fixed-N: the z-interval at the same α, with the number of blocks that gives the same power as the
//   sequential test reached (and, beside it, 90% power), computed in closed form.
//   nh-ref: `ab --sequential` runs of the shipped gates through the CLI; A/A legs of the null gate, whose
//   centred blocks are resampled into ≥10,000 sequential runs for the type-I error on real noise.
// Usage: npm run build && node bench/sequential-bench.mjs [--runs N] [--real K] [--no-real] [--json]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideSequential, confidenceSequence } from '../dist/stats/sequential.js';
import { seededRandom } from '../dist/stats/bootstrap.js';
import { normalSampler, normalQuantile } from '../dist/stats/normal.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : dflt);
const runs = opt('--runs', 10_000);
const realK = opt('--real', 5);
const json = args.includes('--json');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK = 4;

function pctl(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

// One cell: `runs` sequential tests with a look after every block, up to the budget.
function simulateCell({ theta, sigma, bound, tau, alpha, maxBlocks, seed }) {
  const z = normalSampler(seededRandom(seed));
  const p = { alpha, sigma, tau };
  const crit = { bound, better: 'below' };
  const legs = [];
  const words = { SUPPORTED: 0, REFUTED: 0, UNRESOLVED: 0 };
  let excludesZero = 0;
  for (let r = 0; r < runs; r++) {
    const xs = [];
    let word = 'UNRESOLVED';
    let alarm = false;
    for (let b = 0; b < maxBlocks; b++) {
      xs.push(theta + sigma * z());
      const iv = confidenceSequence(xs, p).at(-1);
      if (iv.lo > 0 || iv.hi < 0) alarm = true;
      const d = decideSequential(xs, crit, p);
      if (d.word !== 'UNRESOLVED') { word = d.word; break; }
    }
    if (alarm) excludesZero += 1;
    words[word] += 1;
    legs.push(xs.length * BLOCK);
  }
  return { words, legs, excludesZero };
}

// Blocks a fixed-N z-test needs for power `power` at distance `delta` from the bound (σ known, same α two-sided).
function fixedBlocks(delta, sigma, alpha, power) {
  const n = ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sigma / Math.abs(delta)) ** 2;
  return Math.max(1, Math.ceil(n));
}

const sim = { sigma: 0.02, bound: Math.log(0.99), tau: 0.03, alpha: 0.05, maxBlocks: 50 };
const cells = [
  { name: '3% true effect', theta: Math.log(0.97) },
  { name: '10% true effect', theta: Math.log(0.9) },
  { name: 'A/A (no effect)', theta: 0 },
  { name: 'boundary (effect = criterion, worst case for type I)', theta: sim.bound },
];
const simOut = [];
for (const [i, c] of cells.entries()) {
  const t0 = Date.now();
  const r = simulateCell({ ...sim, theta: c.theta, seed: 1000 + i });
  const power = r.words.SUPPORTED / runs;
  const row = {
    cell: c.name, runs, blockSd: sim.sigma, criterion: '≥1% less time per token', budgetLegs: sim.maxBlocks * BLOCK,
    supported: power, refuted: r.words.REFUTED / runs, unresolved: r.words.UNRESOLVED / runs, falseAlarmExcludesZero: r.excludesZero / runs,
    legsMean: r.legs.reduce((a, b) => a + b, 0) / runs, legsMedian: pctl(r.legs, 0.5), legsP90: pctl(r.legs, 0.9),
    seconds: (Date.now() - t0) / 1000,
  };
  if (c.theta < sim.bound) {
    // Equal power: the sequential test's measured power, capped at 99% (at 100% "the same power" has no finite N).
    const matched = Math.min(power, 0.99);
    row.fixedMatchedPower = matched;
    row.fixedLegsSamePower = BLOCK * fixedBlocks(sim.bound - c.theta, sim.sigma, sim.alpha, matched);
    row.fixedLegsPower90 = BLOCK * fixedBlocks(sim.bound - c.theta, sim.sigma, sim.alpha, 0.9);
  }
  simOut.push(row);
}

// The reference engine: the CLI, as a user runs it.
function cli(argv) {
  const dir = mkdtempSync(join(tmpdir(), 'nh-seqbench-'));
  let out;
  try {
    out = execFileSync('node', [join(root, 'bin', 'nh-gate.js'), ...argv, '--results-dir', dir, '--json'], { cwd: root, env: { ...process.env, NH_GATE_LOCK: join(dir, 'lock') }, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 28 });
  } catch (e) {
    out = e.stdout;
  }
  return JSON.parse(out.toString());
}
const real = {};
if (!args.includes('--no-real')) {
  const g = (f) => join(root, 'gates', 'nh-ref', f);
  const seqRuns = Array.from({ length: realK }, (_, k) => cli(['ab', '--sequential', '--gate', g('decode-step-ab.json'), '--seed', String(k + 1)]));
  const fixed = cli(['ab', '--gate', g('decode-step-ab.json')]);
  real.decodeStep = {
    sequential: seqRuns.map((r) => ({ verdict: r.verdict.word, legs: r.legs.length, interval: [r.comparison.sequential.decision.ratioLo, r.comparison.sequential.decision.ratioHi] })),
    fixedN: { verdict: fixed.verdict.word, legs: fixed.legs.length, interval: fixed.comparison.ci ? [fixed.comparison.ci.lo, fixed.comparison.ci.hi] : null },
  };
  const nulls = Array.from({ length: Math.max(1, Math.ceil(realK / 2)) }, (_, k) => cli(['ab', '--sequential', '--gate', g('null-ab.json'), '--seed', String(k + 1)]));
  real.nullGate = nulls.map((r) => ({ verdict: r.verdict.word, legs: r.legs.length }));
  // A/A legs on this machine → centred blocks → resampled sequential runs under the null gate's parameters.
  const aas = [cli(['ab', '--aa', '--gate', g('null-ab.json'), '--seed', '1']), cli(['ab', '--aa', '--gate', g('null-ab.json'), '--seed', '2'])];
  const blocks = aas.flatMap((r) => r.comparison.aa.logRatios);
  const m = blocks.reduce((a, b) => a + b, 0) / blocks.length;
  const centred = blocks.map((x) => x - m);
  const gate = JSON.parse(readFileSync(g('null-ab.json'), 'utf8'));
  const p = { alpha: gate.sequential.alpha, sigma: gate.sequential.sigmaLogRatio, tau: gate.sequential.tauLogRatio };
  const crit = { bound: Math.log(1 - gate.hypothesis.refutedIfLessThanPct / 100), better: 'below' };
  const maxBlocks = Math.floor(gate.sequential.maxLegs / BLOCK);
  const rand = seededRandom(7);
  let wrongSupported = 0;
  let alarms = 0;
  for (let r = 0; r < runs; r++) {
    const xs = [];
    let alarm = false;
    for (let b = 0; b < maxBlocks; b++) {
      xs.push(centred[Math.floor(rand() * centred.length)]);
      const iv = confidenceSequence(xs, p).at(-1);
      if (iv.lo > 0 || iv.hi < 0) alarm = true;
      if (decideSequential(xs, crit, p).word === 'SUPPORTED') { wrongSupported += 1; break; }
    }
    if (alarm) alarms += 1;
  }
  const sd = Math.sqrt(centred.reduce((a, b) => a + b * b, 0) / (centred.length - 1));
  real.aa = { blocks: blocks.length, blockSdLogRatio: sd, registeredSigma: p.sigma, observedMeanLogRatio: m, resampledRuns: runs, wrongSupported: wrongSupported / runs, falseAlarmExcludesZero: alarms / runs, alpha: p.alpha, calibrationVerdicts: aas.map((r) => r.verdict.word) };
}

if (json) {
  process.stdout.write(JSON.stringify({ schemaVersion: 1, simulation: { params: sim, cells: simOut }, nhRef: real }, null, 2) + '\n');
} else {
  const f = (x) => (100 * x).toFixed(2) + '%';
  console.log(`simulation: block sd ${sim.sigma} (log ratio), criterion ≥1% faster, τ ${sim.tau}, α ${sim.alpha}, budget ${sim.maxBlocks * BLOCK} legs, ${runs} runs per cell`);
  for (const r of simOut) {
    console.log(`  ${r.cell}: SUPPORTED ${f(r.supported)}, REFUTED ${f(r.refuted)}, UNRESOLVED ${f(r.unresolved)}${r.cell.startsWith('A/A') ? `; A/A false alarm (CS excluded 0) ${f(r.falseAlarmExcludesZero)}` : ''}; legs to verdict mean ${r.legsMean.toFixed(1)}, median ${r.legsMedian}, p90 ${r.legsP90}`
      + (r.fixedLegsSamePower ? `; fixed-N at the same α and power (${f(r.fixedMatchedPower)}): ${r.fixedLegsSamePower} legs (at 90% power: ${r.fixedLegsPower90})` : ''));
  }
  if (real.decodeStep) {
    console.log(`nh-ref decode-step gate: sequential ${real.decodeStep.sequential.map((r) => `${r.verdict} in ${r.legs} legs`).join(', ')}; fixed-N ${real.decodeStep.fixedN.verdict} in ${real.decodeStep.fixedN.legs} legs`);
    console.log(`nh-ref null gate: ${real.nullGate.map((r) => `${r.verdict} after ${r.legs} legs`).join(', ')}`);
    const a = real.aa;
    console.log(`nh-ref A/A: ${a.blocks} real blocks, sd ${a.blockSdLogRatio.toFixed(4)} (registered σ ${a.registeredSigma}), mean ${a.observedMeanLogRatio.toFixed(4)}; over ${a.resampledRuns} resampled sequential runs: wrong SUPPORTED ${f(a.wrongSupported)}, CS excluded 0 in ${f(a.falseAlarmExcludesZero)} (α ${a.alpha}); calibration verdicts ${a.calibrationVerdicts.join(', ')}`);
  }
}

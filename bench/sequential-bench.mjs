#!/usr/bin/env node
// Sequential A/B against fixed-N, by simulation and on the reference engine (figures, not a timed test).
//   Simulation: per-block observations ~ N(θ, σ²) judged by the judge's own rule (src/gates/ab/judge:
//   the region of each claim, the confidence sequence after each block, the combine rule across criteria):
//   superiority cells (3%, 10%, A/A, the boundary), a two-criteria 'all' gate (a ratio and a points metric),
//   non-inferiority and equivalence at no effect and at their margin (the worst case for a wrong SUPPORTED).
//   Fixed-N: the z-interval at the same α, with the blocks that give the same power as the sequential
//   test reached (and, beside it, 90% power), in closed form.
//   nh-ref: `ab --sequential` runs of the shipped gates through the CLI; A/A legs of the null gate, whose
//   centred blocks are resampled into ≥10,000 sequential runs for the type-I error on real noise.
// Usage: npm run build && node bench/sequential-bench.mjs [--runs N] [--real K] [--no-real] [--json]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { confidenceSequence } from '../dist/stats/sequential.js';
import { sequenceDecisions } from '../dist/gates/ab/judge/sequential.js';
import { combineWords } from '../dist/gates/ab/judge/region.js';
import { regionOf } from '../dist/gates/ab/claim.js';
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

// A criterion as the judge holds it (scale, test, direction, margin → region), with its block noise and truth.
function criterion({ scale = 'ratio', test = 'superiority', direction = 'lower', margin, sigma, tau, theta }) {
  const region = regionOf({ scale, test, direction, margin });
  return { scale, test, direction, margin, region, noEffect: scale === 'ratio' ? 1 : 0, sigma, tau, theta };
}

// One cell: `runs` sequential tests of one or more criteria (combined by `combine`), a look after every block.
function simulateCell({ criteria, combine = 'all', alpha, maxBlocks, seed }) {
  const z = normalSampler(seededRandom(seed));
  const legs = [];
  const words = { SUPPORTED: 0, REFUTED: 0, UNRESOLVED: 0 };
  let excludesZero = 0;
  for (let r = 0; r < runs; r++) {
    const xs = criteria.map(() => []);
    let word = 'UNRESOLVED';
    let alarm = false;
    for (let b = 0; b < maxBlocks; b++) {
      criteria.forEach((c, k) => xs[k].push(c.theta + c.sigma * z()));
      const now = criteria.map((c, k) => sequenceDecisions(c, xs[k], { alpha, sigma: c.sigma, tau: c.tau }).at(-1));
      if (now[0].interval && (Math.log(now[0].interval.lo) > 0 || Math.log(now[0].interval.hi) < 0)) alarm = true;
      const w = combineWords(now.map((d) => d.decision.word), combine);
      if (w !== 'UNRESOLVED') { word = w; break; }
    }
    if (alarm) excludesZero += 1;
    words[word] += 1;
    legs.push(xs[0].length * BLOCK);
  }
  return { words, legs, excludesZero };
}

// Blocks a fixed-N z-test needs for power `power` at distance `delta` from the bound (σ known, same α two-sided).
function fixedBlocks(delta, sigma, alpha, power) {
  const n = ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sigma / Math.abs(delta)) ** 2;
  return Math.max(1, Math.ceil(n));
}

const sim = { sigma: 0.02, tau: 0.03, alpha: 0.05, maxBlocks: 50 };
const faster1 = (theta) => criterion({ margin: 1, sigma: sim.sigma, tau: sim.tau, theta });
const cells = [
  { name: '3% true effect', criteria: [faster1(Math.log(0.97))], fixed: true },
  { name: '10% true effect', criteria: [faster1(Math.log(0.9))], fixed: true },
  { name: 'A/A (no effect)', criteria: [faster1(0)] },
  { name: 'boundary (effect = criterion, worst case for type I)', criteria: [faster1(Math.log(0.99))] },
  // The DEVICE_MAMBA shape: a ratio (≥ 1% faster) and a points metric (≥ 5 points busier), both must hold.
  { name: "criteria 'all': 3% faster and 10 points busier (bounds 1%, 5 points; points σ 4)", criteria: [faster1(Math.log(0.97)), criterion({ scale: 'points', direction: 'higher', margin: 5, sigma: 4, tau: 6, theta: 10 })] },
  { name: "criteria 'all': 3% faster but only 2 points busier (the points bound fails)", criteria: [faster1(Math.log(0.97)), criterion({ scale: 'points', direction: 'higher', margin: 5, sigma: 4, tau: 6, theta: 2 })] },
  { name: 'non-inferiority (at most 5% slower), no true effect', criteria: [criterion({ test: 'non-inferiority', direction: 'higher', margin: 5, sigma: sim.sigma, tau: sim.tau, theta: 0 })] },
  { name: 'non-inferiority, true effect at the margin (worst case for a wrong SUPPORTED)', criteria: [criterion({ test: 'non-inferiority', direction: 'higher', margin: 5, sigma: sim.sigma, tau: sim.tau, theta: Math.log(1.05) })] },
  { name: 'equivalence (within ±5%), no true effect', criteria: [criterion({ test: 'equivalence', direction: null, margin: 5, sigma: sim.sigma, tau: sim.tau, theta: 0 })] },
  { name: 'equivalence, true effect at the upper margin (worst case)', criteria: [criterion({ test: 'equivalence', direction: null, margin: 5, sigma: sim.sigma, tau: sim.tau, theta: Math.log(1.05) })] },
];
const simOut = [];
for (const [i, c] of cells.entries()) {
  const t0 = Date.now();
  const r = simulateCell({ criteria: c.criteria, alpha: sim.alpha, maxBlocks: sim.maxBlocks, seed: 1000 + i });
  const power = r.words.SUPPORTED / runs;
  const row = {
    cell: c.name, runs, blockSd: sim.sigma, budgetLegs: sim.maxBlocks * BLOCK,
    supported: power, refuted: r.words.REFUTED / runs, unresolved: r.words.UNRESOLVED / runs, falseAlarmExcludesZero: r.excludesZero / runs,
    legsMean: r.legs.reduce((a, b) => a + b, 0) / runs, legsMedian: pctl(r.legs, 0.5), legsP90: pctl(r.legs, 0.9),
    seconds: (Date.now() - t0) / 1000,
  };
  if (c.fixed) {
    // Equal power: the sequential test's measured power, capped at 99% (at 100% "the same power" has no finite N).
    const matched = Math.min(power, 0.99);
    const delta = Math.log(0.99) - c.criteria[0].theta;
    row.fixedMatchedPower = matched;
    row.fixedLegsSamePower = BLOCK * fixedBlocks(delta, sim.sigma, sim.alpha, matched);
    row.fixedLegsPower90 = BLOCK * fixedBlocks(delta, sim.sigma, sim.alpha, 0.9);
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
  const verdicts = (rs) => rs.map((r) => ({ verdict: r.verdict.word, legs: r.legs.length, intervals: r.comparison.metrics.map((m) => (m.interval ? [m.interval.lo, m.interval.hi] : null)) }));
  const seq = (gate, k) => Array.from({ length: k }, (_, i) => cli(['ab', '--sequential', '--gate', g(gate), '--seed', String(i + 1)]));
  real.decodeStep = { sequential: verdicts(seq('decode-step-ab.json', realK)), fixedN: verdicts([cli(['ab', '--gate', g('decode-step-ab.json')])])[0] };
  real.nullGate = verdicts(seq('null-ab.json', Math.max(1, Math.ceil(realK / 2))));
  // The criteria gates of non-inferiority: both claims decided sequentially on the engine's median decode step.
  real.nullNonInferiority = { sequential: verdicts(seq('null-noninferiority-ab.json', realK)), fixedN: verdicts([cli(['ab', '--gate', g('null-noninferiority-ab.json')])])[0] };
  real.decodeStepNonInferiority = { sequential: verdicts(seq('decode-step-noninferiority-ab.json', realK)), fixedN: verdicts([cli(['ab', '--gate', g('decode-step-noninferiority-ab.json')])])[0] };
  // A/A legs on this machine → centred blocks → resampled sequential runs under the null gate's parameters.
  const aas = [cli(['ab', '--aa', '--gate', g('null-ab.json'), '--seed', '1']), cli(['ab', '--aa', '--gate', g('null-ab.json'), '--seed', '2'])];
  const blocks = aas.flatMap((r) => r.comparison.metrics[0].aa.xs);
  const m = blocks.reduce((a, b) => a + b, 0) / blocks.length;
  const centred = blocks.map((x) => x - m);
  const gate = JSON.parse(readFileSync(g('null-ab.json'), 'utf8'));
  const p = { alpha: gate.sequential.alpha, sigma: gate.sequential.sigmaLogRatio, tau: gate.sequential.tauLogRatio };
  const crit = criterion({ margin: gate.hypothesis.refutedIfLessThanPct, sigma: p.sigma, tau: p.tau, theta: 0 });
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
      if (sequenceDecisions(crit, xs, p).at(-1).decision.word === 'SUPPORTED') { wrongSupported += 1; break; }
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
  console.log(`simulation: block sd ${sim.sigma} (log ratio), τ ${sim.tau}, α ${sim.alpha}, budget ${sim.maxBlocks * BLOCK} legs, ${runs} runs per cell`);
  for (const r of simOut) {
    console.log(`  ${r.cell}: SUPPORTED ${f(r.supported)}, REFUTED ${f(r.refuted)}, UNRESOLVED ${f(r.unresolved)}${r.cell.startsWith('A/A') ? `; A/A false alarm (CS excluded 0) ${f(r.falseAlarmExcludesZero)}` : ''}; legs to verdict mean ${r.legsMean.toFixed(1)}, median ${r.legsMedian}, p90 ${r.legsP90}`
      + (r.fixedLegsSamePower ? `; fixed-N at the same α and power (${f(r.fixedMatchedPower)}): ${r.fixedLegsSamePower} legs (at 90% power: ${r.fixedLegsPower90})` : ''));
  }
  const line = (name, x) => console.log(`nh-ref ${name}: sequential ${x.sequential.map((r) => `${r.verdict} in ${r.legs} legs`).join(', ')}; fixed-N ${x.fixedN.verdict} in ${x.fixedN.legs} legs`);
  if (real.decodeStep) {
    line('decode-step gate', real.decodeStep);
    console.log(`nh-ref null gate: ${real.nullGate.map((r) => `${r.verdict} after ${r.legs} legs`).join(', ')}`);
    line('null non-inferiority gate (B at most 10% slower)', real.nullNonInferiority);
    line('decode-step non-inferiority gate (=0 at most 5% slower than =1)', real.decodeStepNonInferiority);
    const a = real.aa;
    console.log(`nh-ref A/A: ${a.blocks} real blocks, sd ${a.blockSdLogRatio.toFixed(4)} (registered σ ${a.registeredSigma}), mean ${a.observedMeanLogRatio.toFixed(4)}; over ${a.resampledRuns} resampled sequential runs: wrong SUPPORTED ${f(a.wrongSupported)}, CS excluded 0 in ${f(a.falseAlarmExcludesZero)} (α ${a.alpha}); calibration verdicts ${a.calibrationVerdicts.join(', ')}`);
  }
}

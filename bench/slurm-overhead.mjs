#!/usr/bin/env node
// The added cost per leg of going through Slurm: the same a3 leg of the reference engine run by the local
// executor, by --executor slurm with a job per leg (jobPer leg), and as job steps in one held allocation
// (jobPer series, the default), interleaved in rotating order so machine drift cancels.
// Per leg it prints the wall time nh-gate spends, and for Slurm where the extra goes: submission → driver
// start (queue, scheduling, launch on the node, the runner's start) and driver end → record collected.
// The allocation's own start (once per series) is printed apart from the per-leg cost of a step.
// Usage: npm run build && scripts/slurm/local-cluster.sh start && SLURM_CONF=.cache/slurm/slurm.conf node bench/slurm-overhead.mjs [--legs N] [--json]
// Needs the reference engine built (`npx nh-gate build`, or any a3 run) first.
import { mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadInputs } from '../dist/gates/setup.js';
import { runLeg } from '../dist/gates/leg/leg.js';
import { planA3 } from '../dist/plan/plan.js';
import { buildVars } from '../dist/build/build.js';
import { expandString } from '../dist/build/template.js';
import { realDeps } from '../dist/gates/deps.js';
import { slurmLegRunner } from '../dist/slurm/legRunner.js';
import { slurmClient } from '../dist/slurm/client.js';
import { SlurmConfigSchema } from '../dist/slurm/config.js';

const args = process.argv.slice(2);
const legs = Number(args[args.indexOf('--legs') + 1] ?? 0) || 5;
const json = args.includes('--json');
if (!process.env.SLURM_CONF) process.env.SLURM_CONF = resolve('.cache/slurm/slurm.conf');
if (!existsSync(process.env.SLURM_CONF)) {
  process.stderr.write(`slurm-overhead: no ${process.env.SLURM_CONF}: start the local cluster (scripts/slurm/local-cluster.sh start)\n`);
  process.exit(2);
}

const inputs = loadInputs({ command: 'a3' });
const vars = buildVars(inputs.recipe, inputs.root, 'cpu', 2);
const binaryPath = expandString(inputs.recipe.driver.binary, vars, 'binary');
if (!existsSync(binaryPath)) {
  process.stderr.write(`slurm-overhead: ${binaryPath} is missing: run 'npx nh-gate build' first\n`);
  process.exit(2);
}
const local = { ...(await realDeps()), progress: () => {} };
// Each on a node of its own: the held allocation has its node to itself, so a job pinned there would wait for it.
const config = SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.1, jobPer: 'leg', extraArgs: ['--nodelist=n1'] });
const stepConfig = SlurmConfigSchema.parse({ schemaVersion: 1, pollS: 0.1, jobPer: 'series', extraArgs: ['--nodelist=n2'] });
const slurm = { ...local, legRunner: slurmLegRunner({ config, client: slurmClient(local.exec), progress: () => {} }) };
const stepRunner = slurmLegRunner({ config: stepConfig, client: slurmClient(local.exec), progress: () => {} });
const step = { ...local, legRunner: stepRunner };
const planned = planA3(inputs.recipe, null, 'decode', {}).legs[0];
const base = { recipe: inputs.recipe, profile: inputs.profile, golden: inputs.golden, goldenPath: inputs.goldenPath, vars, binaryPath, silicon: await local.detectSilicon(), sampleGpu: false, deviceIndex: 0, timeoutS: 120, signal: new AbortController().signal };

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const rows = { local: [], slurm: [], step: [], queueS: [], collectS: [], stepQueueS: [], stepCollectS: [], driverLocal: [], driverSlurm: [] };
// The steps share one allocation, so they share one run directory and one origin (as a series does).
const stepOrigin = process.hrtime.bigint();
const stepDir = mkdtempSync(join(tmpdir(), 'nh-slurm-bench-step-'));
const kinds = ['local', 'slurm', 'step'];
let leaseStartS = null;
try {
for (let i = 0; i < legs; i++) {
  for (const which of [...kinds.slice(i % 3), ...kinds.slice(0, i % 3)]) {
    const originNs = which === 'step' ? stepOrigin : process.hrtime.bigint();
    const runDir = which === 'step' ? stepDir : mkdtempSync(join(tmpdir(), `nh-slurm-bench-${which}-`));
    const t0 = process.hrtime.bigint();
    const leg = which === 'step' ? { ...planned, index: rows.step.length + (leaseStartS === null ? 0 : 1) } : planned;
    const out = await runLeg({ ...base, deps: which === 'slurm' ? slurm : which === 'step' ? step : local, runDir, originNs, planLegs: legs + 1 }, leg);
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    if (out.record.verdict !== 'STRICT PASS') throw new Error(`${which} leg ${i + 1}: ${out.record.verdict} ${out.record.voidReasons.map((r) => `${r.code}: ${r.message}`).join('; ')}`);
    const p = out.record.process;
    if (which === 'step' && leaseStartS === null) {
      // The first step also waited for the allocation and its holder: paid once per series.
      leaseStartS = wallS;
      continue;
    }
    rows[which].push(wallS);
    (which === 'local' ? rows.driverLocal : rows.driverSlurm).push(p.endS - p.startS);
    if (which !== 'local') {
      (which === 'slurm' ? rows.queueS : rows.stepQueueS).push(p.startS - out.record.slurm.submitS);
      (which === 'slurm' ? rows.collectS : rows.stepCollectS).push(out.record.slurm.collectS - p.endS);
    }
  }
}
} finally {
  // The held allocation ends with the bench, however it ends.
  await stepRunner.release();
}
const fig = {
  legs, localLegS: median(rows.local), slurmLegS: median(rows.slurm), addedPerLegS: median(rows.slurm) - median(rows.local),
  sbatchToDriverStartS: median(rows.queueS), driverEndToCollectedS: median(rows.collectS),
  stepLegS: median(rows.step), stepAddedPerLegS: median(rows.step) - median(rows.local), allocationStartS: leaseStartS - median(rows.step),
  srunToDriverStartS: median(rows.stepQueueS), stepEndToCollectedS: median(rows.stepCollectS),
  jobOverStepPerLeg: (median(rows.slurm) - median(rows.local)) / (median(rows.step) - median(rows.local)),
  driverLocalS: median(rows.driverLocal), driverSlurmS: median(rows.driverSlurm), pollS: config.pollS,
};
if (json) process.stdout.write(JSON.stringify(fig, null, 2) + '\n');
else {
  process.stdout.write(`slurm overhead per leg (a3 tiny decode, local cluster, ${legs} legs each, interleaved, medians; poll ${config.pollS} s)\n`);
  process.stdout.write(`  local leg ${fig.localLegS.toFixed(3)} s · job per leg ${fig.slurmLegS.toFixed(3)} s · step in a held allocation ${fig.stepLegS.toFixed(3)} s\n`);
  process.stdout.write(`  added per leg: job ${fig.addedPerLegS.toFixed(3)} s · step ${fig.stepAddedPerLegS.toFixed(3)} s (job/step ${fig.jobOverStepPerLeg.toFixed(1)}x); the allocation's start, once per series: ${fig.allocationStartS.toFixed(3)} s\n`);
  process.stdout.write(`  job: sbatch → driver start ${fig.sbatchToDriverStartS.toFixed(3)} s; driver end → record collected ${fig.driverEndToCollectedS.toFixed(3)} s\n`);
  process.stdout.write(`  step: srun → driver start ${fig.srunToDriverStartS.toFixed(3)} s; driver end → record collected ${fig.stepEndToCollectedS.toFixed(3)} s\n`);
  process.stdout.write(`  driver itself: local ${fig.driverLocalS.toFixed(3)} s, in the job ${fig.driverSlurmS.toFixed(3)} s\n`);
}

#!/usr/bin/env node
// What busy and mutate cost through Slurm. mutate: the same rows of the reference engine's table with
// `--executor local --jobs 2` and `--executor slurm --jobs 2`, interleaved (local, slurm, slurm, local …)
// on one warm workspace, so both rebuild incrementally and machine drift cancels; printed side by side,
// with the Slurm cost per suite run (job submitted → record read, minus the suite's own run time).
// busy: the same short command locally and through Slurm (a lease and a step: jobPer series), both
// sampled by the stand-in NVML.
// Usage: npm run build && scripts/slurm/local-cluster.sh start && SLURM_CONF=.cache/slurm/slurm.conf \
//   node bench/slurm-mutate.mjs [--shard 1/5] [--repeats 2] [--busy 3] [--json]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (k, d) => (args.includes(k) ? args[args.indexOf(k) + 1] : d);
const shard = opt('--shard', '1/5');
const repeats = Number(opt('--repeats', '2'));
const busyRuns = Number(opt('--busy', '3'));
const json = args.includes('--json');
if (!process.env.SLURM_CONF) process.env.SLURM_CONF = resolve('.cache/slurm/slurm.conf');
if (!existsSync(process.env.SLURM_CONF)) {
  process.stderr.write(`slurm-mutate: no ${process.env.SLURM_CONF}: start the local cluster (scripts/slurm/local-cluster.sh start)\n`);
  process.exit(2);
}
const fakeNvml = resolve('native/addon/build/Release/libfake-nvidia-ml.so');
const cfgDir = mkdtempSync(join(tmpdir(), 'nh-bench-slurm-cfg-'));
const cfg = join(cfgDir, 'nh-gate.slurm.json');
// Its own node lock, so a cluster of another checkout on this host (same node names) never shares it.
writeFileSync(cfg, JSON.stringify({ schemaVersion: 1, pollS: 0.1, nodeLock: join(cfgDir, 'gpu-%n.lock') }));

const cli = (argv, env = {}) => {
  const t0 = process.hrtime.bigint();
  let out;
  try {
    out = execFileSync(process.execPath, ['bin/nh-gate.js', ...argv], { encoding: 'utf8', env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
  } catch (err) {
    out = err.stdout;
  }
  return { wallS: Number(process.hrtime.bigint() - t0) / 1e9, doc: JSON.parse(out) };
};
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : NaN; };
const f = (x) => x.toFixed(2);

// mutate: one warm-up run builds the two trees; then interleaved measured runs.
const ws = mkdtempSync(join(tmpdir(), 'nh-bench-slurm-mut-'));
const mutArgs = (executor) => ['mutate', '--shard', shard, '--jobs', '2', '--workspace', ws, '--out', mkdtempSync(join(tmpdir(), `nh-bench-mut-${executor}-`)), '--json', '--executor', executor, ...(executor === 'slurm' ? ['--slurm-config', cfg] : [])];
const verdicts = (doc) => doc.rows.map((r) => `${r.id}:${r.verdict}`).join(' ');
const warm = cli(mutArgs('local'));
const mut = { local: [], slurm: [], perSuiteS: [], suiteRuns: 0, rows: warm.doc.rows.length };
for (let i = 0; i < repeats; i++) {
  for (const which of i % 2 === 0 ? ['local', 'slurm'] : ['slurm', 'local']) {
    const r = cli(mutArgs(which));
    if (verdicts(r.doc) !== verdicts(warm.doc)) throw new Error(`${which}: rows ${verdicts(r.doc)} differ from ${verdicts(warm.doc)}`);
    mut[which].push(r.wallS);
    if (which === 'slurm') {
      const runs = [...r.doc.rows.map((x) => x.suite), ...Object.values(r.doc.baselines[0]?.suites ?? {})].filter((s) => s?.slurm);
      mut.suiteRuns = runs.length;
      for (const s of runs) mut.perSuiteS.push(s.slurm.collectS - s.slurm.submitS - s.durationS);
    }
  }
}

// busy: a 0.5 s command, interleaved; local samples through the same stand-in NVML as the nodes.
const results = mkdtempSync(join(tmpdir(), 'nh-bench-slurm-busy-'));
const busyArgs = (executor) => ['busy', '--results-dir', results, '--json', '--executor', executor, ...(executor === 'slurm' ? ['--slurm-config', cfg] : []), '--', 'sh', '-c', 'echo start; sleep 0.5; echo end'];
const localEnv = { NH_GATE_NVML_LIBRARY: fakeNvml, FAKE_NVML_NAME: 'Fake H200', FAKE_NVML_CC: '9.0', NH_GATE_LOCK: join(results, 'gpu.lock') };
const busy = { local: [], slurm: [], queueS: [] };
for (let i = 0; i < busyRuns; i++) {
  for (const which of i % 2 === 0 ? ['local', 'slurm'] : ['slurm', 'local']) {
    const r = cli(busyArgs(which), which === 'local' ? localEnv : {});
    if (r.doc.verdict.word !== 'MEASURED') throw new Error(`busy ${which}: ${r.doc.verdict.word} ${r.doc.verdict.reasons.join('; ')}`);
    busy[which].push(r.wallS);
    if (which === 'slurm') busy.queueS.push(r.doc.slurm.collectS - r.doc.slurm.submitS);
  }
}

const out = {
  schemaVersion: 1, shard, repeats, rows: mut.rows,
  mutate: { localS: mut.local, slurmS: mut.slurm, medianLocalS: median(mut.local), medianSlurmS: median(mut.slurm), suiteRunsThroughSlurm: mut.suiteRuns, slurmCostPerSuiteRunS: median(mut.perSuiteS) },
  busy: { localS: busy.local, slurmS: busy.slurm, medianAddedS: median(busy.slurm) - median(busy.local), medianJobS: median(busy.queueS) },
  machine: readFileSync('/proc/cpuinfo', 'utf8').split('\n').filter((l) => l.startsWith('processor')).length + ' cores',
};
if (json) process.stdout.write(JSON.stringify(out, null, 2) + '\n');
else {
  process.stdout.write(`mutate --shard ${shard} --jobs 2 (${mut.rows} rows, ${repeats} interleaved run(s) each, warm workspace)\n`);
  process.stdout.write(`  executor   wall s (each)                 median\n`);
  process.stdout.write(`  local      ${mut.local.map(f).join(', ').padEnd(30)}${f(out.mutate.medianLocalS)}\n`);
  process.stdout.write(`  slurm      ${mut.slurm.map(f).join(', ').padEnd(30)}${f(out.mutate.medianSlurmS)}   (+${f(out.mutate.medianSlurmS - out.mutate.medianLocalS)} s)\n`);
  process.stdout.write(`  Slurm's cost per suite run (submit → record read, minus the suite's run): median ${f(out.mutate.slurmCostPerSuiteRunS)} s over ${mut.perSuiteS.length} runs\n`);
  process.stdout.write(`busy -- sh -c 'echo start; sleep 0.5; echo end' (${busyRuns} interleaved run(s) each)\n`);
  process.stdout.write(`  local      ${busy.local.map(f).join(', ')}\n  slurm      ${busy.slurm.map(f).join(', ')}\n`);
  process.stdout.write(`  added through Slurm: median ${f(out.busy.medianAddedS)} s per busy run (job submitted → record read: median ${f(out.busy.medianJobS)} s)\n`);
}

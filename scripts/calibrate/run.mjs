#!/usr/bin/env node
// Calibration of the busy instrument on a real GPU (issues #5, #23), and the end-to-end check of the real
// sampler. Needs: `npm run build` (dist/), the addon (node scripts/build-addon.mjs), the load
// (native/calibrate/build.sh), nvidia-smi; for the torch-bursts load, python3 with torch. No npm packages are
// imported, so it runs with dist/ alone.
//
//   node scripts/calibrate/run.mjs [--out DIR] [--seconds 4] [--duties 0.05,0.2,0.5,0.8]
//        [--variants one-block,full-gpu,bursts,torch-bursts] [--seed 1] [--period-ms N] [--gpm-ms N]
//        [--duty-bin PATH] [--torch-load PATH] [--python python3]
//
// For each load × duty it runs the load under both instruments at once: the load's true busy fraction (CUDA
// events over its own window), nh-gate's busy (NVML driver samples → src/quantity/busy.ts, exactly as the
// gates read them) and, over the same samples, the round-2 rule (uniform edges, readings as given), the seeds'
// figure (nvidia-smi -lms 100, share of rows > 0), GPM SM_UTIL, and the CPU each sampler cost per second.
// Writes DIR/calibration.json (rows + checks {name, ok, threshold, figure}), DIR/table.md, DIR/busy-table.md.
// Exit 0 when every check passed, 1 otherwise; the tables are printed either way.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { busyChecks, busyTable, cpuChecks, gpmChecks, uniformBusyPct } from './judge.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { openBusySampler, computeProcesses } = await import(join(root, 'dist/sampler/index.js'));
const { busyFromSamples } = await import(join(root, 'dist/quantity/busy.js'));
const { readingsOfSource } = await import(join(root, 'dist/quantity/busySpans.js'));
const { activityFromGpm } = await import(join(root, 'dist/quantity/activity.js'));
const { gatherProbe, renderProbe } = await import(join(root, 'dist/silicon/probeReport.js'));
const { loadAddon } = await import(join(root, 'dist/sampler/load.js'));
const { procCpuS } = await import(join(root, 'dist/sampler/smi.js'));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const outDir = arg('out', join(root, '.nh-gate', 'calibrate'));
const seconds = Number(arg('seconds', '4'));
const duties = arg('duties', '0.05,0.2,0.5,0.8').split(',').map(Number);
const variants = arg('variants', 'one-block,full-gpu,bursts,torch-bursts').split(',');
const seed = Number(arg('seed', '1'));
// Sampler cadences (defaults: the addon's own).
const cadence = { ...(arg('period-ms') ? { periodMs: Number(arg('period-ms')) } : {}), ...(arg('gpm-ms') ? { gpmIntervalMs: Number(arg('gpm-ms')) } : {}) };
const duty = arg('duty-bin', join(root, 'native/calibrate/build/nh-duty'));
const torchLoad = arg('torch-load', join(root, 'native/calibrate/torch_bursts.py'));
const python = arg('python', 'python3');
mkdirSync(outDir, { recursive: true });
const monoS = () => Number(process.hrtime.bigint()) / 1e9;
const checks = [];
const check = (name, ok, threshold, figure) => {
  checks.push({ name, ok: Boolean(ok), threshold, figure });
  process.stderr.write(`${ok ? 'PASS' : 'FAIL'} ${name} — ${threshold}: ${figure ?? ''}\n`);
};
const readLines = (path) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

// The seeds' instrument: one nvidia-smi process polling utilization.gpu every 100 ms, rows stamped on arrival.
function seedsLoop() {
  const child = spawn('nvidia-smi', ['--query-gpu=utilization.gpu', '--format=csv,noheader,nounits', '-lms', '100', '-i', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const rows = [];
  createInterface({ input: child.stdout }).on('line', (l) => {
    const v = Number(l.trim());
    if (Number.isFinite(v)) rows.push({ tS: monoS(), pct: v });
  });
  const startS = monoS();
  return {
    rows,
    async stop() {
      const cpuS = procCpuS(child.pid);
      const ranS = monoS() - startS;
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
      return { cpuS, ranS };
    },
  };
}

// The argv of one load: nh-duty (steady one-block / full-GPU, or irregular bursts) or the torch program.
function loadArgv(variant, d, secs) {
  const common = ['--duty', String(d), '--seconds', String(secs)];
  if (variant === 'torch-bursts') return [python, [torchLoad, ...common, '--seed', String(seed)]];
  if (variant === 'bursts') return [duty, [...common, '--variant', 'full-gpu', '--pattern', 'bursts', '--seed', String(seed)]];
  return [duty, [...common, '--variant', variant]];
}

// Async on purpose: the seeds' rows are stamped on arrival, so the event loop must keep running meanwhile.
async function runLoad(variant, d, secs) {
  const [cmd, argv] = loadArgv(variant, d, secs);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const code = await new Promise((r) => {
    child.on('error', (e) => { err += e.message; r(-1); });
    child.on('close', r);
  });
  if (code !== 0) throw new Error(`${cmd} ${argv.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-2).join(' ')}`);
  return JSON.parse(out.trim().split('\n').pop());
}

// ---- end-to-end checks of the real sampler (issue #5 "On the H200: a test script") ----
const probe = await gatherProbe();
process.stderr.write(renderProbe(probe));
check('addon loads', probe.addon.loaded, 'the NVML addon loads', probe.addon.reason ?? probe.addon.path);
check('NVML available', probe.nvml.available, 'libnvidia-ml opens', probe.nvml.library ?? probe.nvml.reason);
check('silicon from NVML', probe.silicon?.source === 'nvml' && probe.silicon.computeCapability && probe.silicon.archTarget, 'name, cc and arch target from NVML',
  probe.silicon ? `${probe.silicon.gpuName} cc ${probe.silicon.computeCapability} ${probe.silicon.smArch}/${probe.silicon.archTarget} driver ${probe.silicon.driverVersion} CUDA ${probe.silicon.cudaDriverVersion}` : probe.siliconError);
const addon = loadAddon();
if (addon.ok) {
  const codeOf = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.code; } };
  const notStarted = codeOf(() => new addon.binding.Sampler({}).stop());
  check('stop() without start()', notStarted === 'SAMPLER_NOT_STARTED', 'SAMPLER_NOT_STARTED', notStarted);
  const s = new addon.binding.Sampler({});
  s.start();
  const twice = codeOf(() => s.start());
  check('start() twice', twice === 'SAMPLER_ALREADY_STARTED', 'SAMPLER_ALREADY_STARTED', twice);
  const info = s.info();
  await s.stop();
  check('NVML sample clock checked at start', /^(realtime|monotonic):/.test(info.clockCheck), 'realtime: or monotonic:', info.clockCheck);
  const skewS = Math.abs(addon.binding.monotonicNowS() - monoS());
  check('hrtime is the addon\'s CLOCK_MONOTONIC', skewS < 0.01, '|addon − hrtime| < 10 ms', `${(skewS * 1e3).toFixed(3)} ms`);
}
// Contention: the load's pid must show up among the GPU's compute processes while it runs.
{
  const child = spawn(duty, ['--duty', '0.5', '--seconds', '3', '--variant', 'one-block'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await sleep(1500);
  const procs = await computeProcesses(0);
  check('computeProcesses sees the running load', procs.status === 'measured' && procs.processes.some((p) => p.pid === child.pid), `pid ${child.pid} listed`,
    JSON.stringify(procs).slice(0, 200));
  await new Promise((r) => child.on('close', r));
}

// ---- the rows ----
const rows = [];
for (const variant of variants) {
  for (const d of duties) {
    const tag = `${variant}-${Math.round(d * 100)}`;
    const samplesPath = join(outDir, `samples-${tag}.jsonl`);
    const sampler = await openBusySampler({ samplesPath, deviceIndex: 0, allowBackends: ['nvml'], ...cadence });
    const seeds = seedsLoop();
    await sleep(800);
    let load = null;
    let loadError = null;
    try {
      load = await runLoad(variant, d, seconds);
    } catch (e) {
      loadError = e.message;
    }
    await sleep(300);
    const smiCost = await seeds.stop();
    const res = await sampler.stop();
    if (!load) {
      rows.push({ variant, dutyTarget: d, loadError });
      process.stderr.write(`${tag}: load failed: ${loadError}\n`);
      continue;
    }
    const lines = readLines(samplesPath);
    const header = lines[0];
    const w = { startS: load.monoStartS, endS: load.monoEndS };
    const util = lines.filter((l) => l.kind === 'util');
    const busy = busyFromSamples(util, w, { readings: readingsOfSource(header.source) });
    const tw = busy.timeWeighted;
    const inWin = seeds.rows.filter((r) => r.tS >= w.startS && r.tS <= w.endS);
    const act = activityFromGpm(lines.filter((l) => l.kind === 'gpm'), w, { gpmStatus: header.sampler?.gpmStatus ?? null });
    const val = (q) => (q.status === 'measured' ? q.value : null);
    const row = {
      variant, dutyTarget: d, truePct: 100 * load.trueBusyFraction, windowS: w.endS - w.startS,
      afterPct: val(tw), afterWhy: tw.status === 'measured' ? null : `${tw.reason}: ${tw.message}`,
      beforePct: uniformBusyPct(util, w),
      samples: tw.status === 'measured' ? tw.terms.samples.value : 0, coverage: tw.status === 'measured' ? tw.terms.coverage.value : 0,
      edges: tw.status === 'measured' ? tw.terms.edges?.value : null,
      nvmlSampleNonzeroShare: val(busy.nonzeroShare), seedsNonzero: inWin.filter((r) => r.pct > 0).length, seedsRows: inWin.length,
      seedsMeanPct: inWin.length ? inWin.reduce((a, r) => a + r.pct, 0) / inWin.length : null,
      gpmSmUtilPct: val(act.smUtil), gpmSmOccupancyPct: val(act.smOccupancy), gpmDramBwUtilPct: val(act.dramBwUtil),
      samplerCpuPerS: res.samplerCpuS === null ? null : res.samplerCpuS / (res.stopS - res.startS),
      smiCpuPerS: smiCost.cpuS === null ? null : smiCost.cpuS / smiCost.ranS,
      utilSamples: res.count, partial: res.partial, errors: res.errors, clockConversion: header.clockConversion,
      clockDriftUs: header.sampler?.clockDriftUs, samplerCpuByActivityS: header.sampler?.samplerCpuByActivityS, samplerRunS: res.stopS - res.startS,
      nominalPeriodMs: header.nominalPeriodMs, driverBuffer: header.sampler?.driverBuffer ?? null, utilEveryS: header.sampler?.utilEveryS ?? null,
      utilGaps: header.sampler?.utilGaps ?? null, tailCovered: header.sampler?.tailCovered ?? null, load,
    };
    rows.push(row);
    const f2 = (x) => (x === null ? 'n/a' : x.toFixed(2));
    process.stderr.write(`${tag}: true ${row.truePct.toFixed(2)}% nh-gate ${f2(row.afterPct)}% round-2 rule ${f2(row.beforePct)}% seeds ${row.seedsNonzero}/${row.seedsRows} gpm ${f2(row.gpmSmUtilPct)} cpu ${row.samplerCpuPerS === null ? 'n/a' : (100 * row.samplerCpuPerS).toFixed(3)}% loop ${row.smiCpuPerS === null ? 'n/a' : (100 * row.smiCpuPerS).toFixed(3)}% ${JSON.stringify(row.samplerCpuByActivityS)}\n`);
  }
}
for (const c of [...busyChecks(rows), ...gpmChecks(rows), ...cpuChecks(rows)]) check(c.name, c.ok, c.threshold, c.figure);

// The nvidia-smi fallback backend on the real tool, same kind of load, for the record.
{
  const samplesPath = join(outDir, 'samples-smi-backend.jsonl');
  const s = await openBusySampler({ samplesPath, deviceIndex: 0, periodMs: 100, allowBackends: ['nvidia-smi'] });
  await sleep(500);
  let figure;
  let ok = false;
  try {
    const load = await runLoad('full-gpu', 0.33, 4);
    await sleep(300);
    const res = await s.stop();
    const lines = readLines(samplesPath);
    const util = lines.filter((l) => l.kind === 'util');
    const busy = busyFromSamples(util, { startS: load.monoStartS, endS: load.monoEndS }, { nominalPeriodS: 0.1, readings: readingsOfSource(lines[0].source) });
    const v = busy.timeWeighted.status === 'measured' ? busy.timeWeighted.value : null;
    ok = res.backend === 'nvidia-smi' && res.count > 10 && v !== null;
    figure = `true ${(100 * load.trueBusyFraction).toFixed(2)}%, nvidia-smi backend ${v === null ? 'n/a' : v.toFixed(2)}% over ${res.count} rows; cpu ${res.samplerCpuS} s`;
  } catch (e) {
    await s.stop();
    figure = e.message;
  }
  check('nvidia-smi backend samples a real window', ok, '> 10 rows and a figure', figure);
}

const f = (x, n = 1) => (x === null || x === undefined ? 'n/a' : x.toFixed(n));
const table = [
  '| load | duty | true busy % | nh-gate % (Δ) | coverage | seeds nonzero share | seeds mean % | GPM SM_UTIL % | GPM SM_OCC % | sampler CPU %/core | nvidia-smi loop CPU %/core |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.filter((r) => !r.loadError).map((r) =>
    `| ${r.variant} | ${Math.round(r.dutyTarget * 100)}% | ${f(r.truePct, 2)} | ${f(r.afterPct, 2)} (${r.afterPct === null ? 'n/a' : (r.afterPct - r.truePct >= 0 ? '+' : '') + f(r.afterPct - r.truePct, 2)}) | ${f(r.coverage, 3)} | ${r.seedsNonzero}/${r.seedsRows} = ${f(r.seedsRows ? (100 * r.seedsNonzero) / r.seedsRows : null)}% | ${f(r.seedsMeanPct)} | ${f(r.gpmSmUtilPct, 2)} | ${f(r.gpmSmOccupancyPct, 2)} | ${f(r.samplerCpuPerS === null ? null : r.samplerCpuPerS * 100, 3)} | ${f(r.smiCpuPerS === null ? null : r.smiCpuPerS * 100, 3)} |`),
].join('\n');
const busyMd = busyTable(rows);
const failed = checks.filter((c) => !c.ok);
writeFileSync(join(outDir, 'calibration.json'), JSON.stringify({ probe, rows, checks, seconds, seed }, null, 2));
writeFileSync(join(outDir, 'table.md'), table + '\n');
writeFileSync(join(outDir, 'busy-table.md'), busyMd + '\n');
process.stdout.write(`${busyMd}\n\n${table}\n\n${checks.length - failed.length}/${checks.length} checks passed${failed.length ? `; failed: ${failed.map((c) => c.name).join(', ')}` : ''}\n`);
process.exitCode = failed.length ? 1 : 0;

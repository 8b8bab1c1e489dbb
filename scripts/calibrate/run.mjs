#!/usr/bin/env node
// Calibration of the busy instrument on a real GPU (issue #5 "must show"), and the end-to-end check of
// the real sampler. Needs: `npm run build` (dist/), the addon (node scripts/build-addon.mjs), the load
// (native/calibrate/build.sh), nvidia-smi. No npm packages are imported, so it runs with dist/ alone.
//
//   node scripts/calibrate/run.mjs [--out DIR] [--seconds 6] [--duties 0.05,0.33,0.66,0.95] [--variants one-block,full-gpu]
//                                  [--period-ms N] [--gpm-ms N] [--duty-bin PATH]
//
// For each variant × duty it runs the load under both instruments at once and reports: the load's true busy
// fraction (CUDA events), nh-gate's time-weighted busy (NVML driver samples → CORE's busyFromSamples over the
// load's window), the seeds' figure (nvidia-smi -lms 100, share of rows > 0), and GPM SM_UTIL. Sampler cost is
// CPU seconds per second of window: the NVML thread (CLOCK_THREAD_CPUTIME_ID) vs the nvidia-smi process (/proc).
// Exit 0 when every end-to-end check passed, 1 otherwise; the table is printed either way.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { openBusySampler, computeProcesses } = await import(join(root, 'dist/sampler/index.js'));
const { busyFromSamples } = await import(join(root, 'dist/quantity/busy.js'));
const { gatherProbe, renderProbe } = await import(join(root, 'dist/silicon/probeReport.js'));
const { loadAddon } = await import(join(root, 'dist/sampler/load.js'));
const { procCpuS } = await import(join(root, 'dist/sampler/smi.js'));

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const outDir = arg('out', join(root, '.nh-gate', 'calibrate'));
const seconds = Number(arg('seconds', '6'));
const duties = arg('duties', '0.05,0.33,0.66,0.95').split(',').map(Number);
const variants = arg('variants', 'one-block,full-gpu').split(',');
// Sampler cadences (defaults: the addon's own, 500 ms tick / 1000 ms GPM pairs).
const cadence = { ...(arg('period-ms') ? { periodMs: Number(arg('period-ms')) } : {}), ...(arg('gpm-ms') ? { gpmIntervalMs: Number(arg('gpm-ms')) } : {}) };
const duty = arg('duty-bin', join(root, 'native/calibrate/build/nh-duty'));
mkdirSync(outDir, { recursive: true });
const monoS = () => Number(process.hrtime.bigint()) / 1e9;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const checks = [];
const check = (name, ok, detail) => {
  checks.push({ name, ok: Boolean(ok), detail });
  process.stderr.write(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}\n`);
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

// Async on purpose: the seeds' rows are stamped on arrival, so the event loop must keep running meanwhile.
async function runLoad(variant, d, secs) {
  const child = spawn(duty, ['--duty', String(d), '--seconds', String(secs), '--variant', variant], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  const code = await new Promise((r) => child.on('close', r));
  if (code !== 0) throw new Error(`nh-duty failed (${code}): ${err}`);
  return JSON.parse(out.trim().split('\n').pop());
}

// Time-weighted mean of a GPM metric over the window (each GPM line covers [tS − intervalS, tS]).
function gpmMean(lines, key, w) {
  let num = 0, den = 0, nulls = 0;
  for (const g of lines) {
    const a = Math.max(g.tS - g.intervalS, w.startS), b = Math.min(g.tS, w.endS);
    if (b <= a) continue;
    if (g[key] === null) { nulls += 1; continue; }
    num += g[key] * (b - a);
    den += b - a;
  }
  return den > 0 ? { value: num / den, coverage: den / (w.endS - w.startS), nulls } : { value: null, coverage: 0, nulls };
}

// ---- end-to-end checks of the real sampler (issue #5 "On the H200: a test script") ----
const probe = await gatherProbe();
process.stderr.write(renderProbe(probe));
check('addon loads', probe.addon.loaded, probe.addon.reason ?? probe.addon.path);
check('NVML available', probe.nvml.available, probe.nvml.library ?? probe.nvml.reason);
check('silicon from nvml with cc and arch target', probe.silicon?.source === 'nvml' && probe.silicon.computeCapability && probe.silicon.archTarget,
  probe.silicon ? `${probe.silicon.gpuName} cc ${probe.silicon.computeCapability} ${probe.silicon.smArch}/${probe.silicon.archTarget} driver ${probe.silicon.driverVersion} CUDA ${probe.silicon.cudaDriverVersion}` : probe.siliconError);
const addon = loadAddon();
if (addon.ok) {
  const codeOf = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.code; } };
  check('stop() without start() is SAMPLER_NOT_STARTED', codeOf(() => new addon.binding.Sampler({}).stop()) === 'SAMPLER_NOT_STARTED');
  const s = new addon.binding.Sampler({});
  s.start();
  check('start() twice is SAMPLER_ALREADY_STARTED', codeOf(() => s.start()) === 'SAMPLER_ALREADY_STARTED');
  const info = s.info();
  await s.stop();
  check('NVML sample clock checked at start', /^(realtime|monotonic):/.test(info.clockCheck), info.clockCheck);
  check('hrtime is the addon\'s CLOCK_MONOTONIC', Math.abs(addon.binding.monotonicNowS() - monoS()) < 0.01);
}
// Contention: the load's pid must show up among the GPU's compute processes while it runs.
{
  const child = spawn(duty, ['--duty', '0.5', '--seconds', '3', '--variant', 'one-block'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await sleep(1500);
  const procs = await computeProcesses(0);
  check('computeProcesses sees the running load', procs.status === 'measured' && procs.processes.some((p) => p.pid === child.pid),
    JSON.stringify(procs).slice(0, 200));
  await new Promise((r) => child.on('close', r));
}

// ---- the table ----
const rows = [];
for (const variant of variants) {
  for (const d of duties) {
    const tag = `${variant}-${Math.round(d * 100)}`;
    const samplesPath = join(outDir, `samples-${tag}.jsonl`);
    const sampler = await openBusySampler({ samplesPath, deviceIndex: 0, allowBackends: ['nvml'], ...cadence });
    const seeds = seedsLoop();
    await sleep(800);
    const load = await runLoad(variant, d, seconds);
    await sleep(300);
    const smiCost = await seeds.stop();
    const res = await sampler.stop();
    const lines = readLines(samplesPath);
    const header = lines[0];
    const w = { startS: load.monoStartS, endS: load.monoEndS };
    const util = lines.filter((l) => l.kind === 'util');
    const busy = busyFromSamples(util, w, {});
    const inWin = seeds.rows.filter((r) => r.tS >= w.startS && r.tS <= w.endS);
    const gpm = lines.filter((l) => l.kind === 'gpm');
    const sm = gpmMean(gpm, 'smUtilPct', w);
    const occ = gpmMean(gpm, 'smOccupancyPct', w);
    const dram = gpmMean(gpm, 'dramBwUtilPct', w);
    const row = {
      variant, dutyTarget: d, truePct: 100 * load.trueBusyFraction,
      timeWeightedPct: busy.timeWeighted.status === 'measured' ? busy.timeWeighted.value : null,
      timeWeighted: busy.timeWeighted,
      nvmlSampleNonzeroShare: busy.nonzeroShare.status === 'measured' ? busy.nonzeroShare.value : null,
      seedsNonzero: inWin.filter((r) => r.pct > 0).length, seedsRows: inWin.length,
      seedsMeanPct: inWin.length ? inWin.reduce((a, r) => a + r.pct, 0) / inWin.length : null,
      gpmSmUtilPct: sm.value, gpmSmOccupancyPct: occ.value, gpmDramBwUtilPct: dram.value, gpmCoverage: sm.coverage,
      samplerCpuPerS: res.samplerCpuS === null ? null : res.samplerCpuS / (res.stopS - res.startS),
      smiCpuPerS: smiCost.cpuS === null ? null : smiCost.cpuS / smiCost.ranS,
      utilSamples: res.count, partial: res.partial, errors: res.errors, clockConversion: header.clockConversion,
      clockDriftUs: header.sampler?.clockDriftUs, samplerCpuByActivityS: header.sampler?.samplerCpuByActivityS, samplerRunS: res.stopS - res.startS, nominalPeriodMs: header.nominalPeriodMs, windowS: w.endS - w.startS, load,
    };
    rows.push(row);
    process.stderr.write(`${tag}: true ${row.truePct.toFixed(2)}% tw ${row.timeWeightedPct?.toFixed(2)}% seeds ${row.seedsNonzero}/${row.seedsRows} gpm ${row.gpmSmUtilPct?.toFixed(2)} cpu ${(100 * row.samplerCpuPerS).toFixed(3)}% ${JSON.stringify(row.samplerCpuByActivityS)}\n`);
  }
}

const f = (x, n = 1) => (x === null || x === undefined ? 'n/a' : x.toFixed(n));
const table = [
  '| variant | duty | true busy % | nh-gate time-weighted % (Δ) | coverage | seeds nonzero share | seeds mean % | GPM SM_UTIL % | GPM SM_OCC % | sampler CPU %/core | nvidia-smi loop CPU %/core |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) => {
    const cov = r.timeWeighted.status === 'measured' ? r.timeWeighted.terms.coverage.value : null;
    return `| ${r.variant} | ${Math.round(r.dutyTarget * 100)}% | ${f(r.truePct, 2)} | ${f(r.timeWeightedPct, 2)} (${r.timeWeightedPct === null ? 'n/a' : (r.timeWeightedPct - r.truePct >= 0 ? '+' : '') + f(r.timeWeightedPct - r.truePct, 2)}) | ${f(cov, 3)} | ${r.seedsNonzero}/${r.seedsRows} = ${f(r.seedsRows ? (100 * r.seedsNonzero) / r.seedsRows : null)}% | ${f(r.seedsMeanPct)} | ${f(r.gpmSmUtilPct, 2)} | ${f(r.gpmSmOccupancyPct, 2)} | ${f(r.samplerCpuPerS === null ? null : r.samplerCpuPerS * 100, 3)} | ${f(r.smiCpuPerS === null ? null : r.smiCpuPerS * 100, 3)} |`;
  }),
].join('\n');
for (const r of rows) {
  check(`time-weighted within 3 points of truth: ${r.variant} ${Math.round(r.dutyTarget * 100)}%`, r.timeWeightedPct !== null && Math.abs(r.timeWeightedPct - r.truePct) <= 3,
    `${f(r.timeWeightedPct, 2)} vs ${f(r.truePct, 2)}`);
  check(`sampler CPU < 1% of a core: ${r.variant} ${Math.round(r.dutyTarget * 100)}%`, r.samplerCpuPerS !== null && r.samplerCpuPerS < 0.01, f(r.samplerCpuPerS * 100, 3) + '%');
}
for (const d of duties) {
  const one = rows.find((r) => r.variant === 'one-block' && r.dutyTarget === d);
  const full = rows.find((r) => r.variant === 'full-gpu' && r.dutyTarget === d);
  if (one && full) check(`GPM tells one-block from full-GPU at ${Math.round(d * 100)}%`, one.gpmSmUtilPct !== null && full.gpmSmUtilPct !== null && full.gpmSmUtilPct > 5 * one.gpmSmUtilPct,
    `SM_UTIL ${f(one.gpmSmUtilPct, 2)} vs ${f(full.gpmSmUtilPct, 2)}`);
}
// The nvidia-smi fallback backend on the real tool, same load, for the record.
{
  const samplesPath = join(outDir, 'samples-smi-backend.jsonl');
  const s = await openBusySampler({ samplesPath, deviceIndex: 0, periodMs: 100, allowBackends: ['nvidia-smi'] });
  await sleep(500);
  const load = await runLoad('full-gpu', 0.33, 4);
  await sleep(300);
  const res = await s.stop();
  const util = readLines(samplesPath).filter((l) => l.kind === 'util');
  const busy = busyFromSamples(util, { startS: load.monoStartS, endS: load.monoEndS }, { nominalPeriodS: 0.1 });
  const v = busy.timeWeighted.status === 'measured' ? busy.timeWeighted.value : null;
  check('nvidia-smi backend samples a real window', res.backend === 'nvidia-smi' && res.count > 10 && v !== null,
    `true ${f(100 * load.trueBusyFraction, 2)}%, nvidia-smi-backend time-weighted ${f(v, 2)}% over ${res.count} rows; cpu ${f(res.samplerCpuS, 3)} s`);
}
const failed = checks.filter((c) => !c.ok);
writeFileSync(join(outDir, 'calibration.json'), JSON.stringify({ probe, rows, checks, seconds }, null, 2));
writeFileSync(join(outDir, 'table.md'), table + '\n');
process.stdout.write(table + '\n\n' + `${checks.length - failed.length}/${checks.length} checks passed\n`);
process.exitCode = failed.length ? 1 : 0;

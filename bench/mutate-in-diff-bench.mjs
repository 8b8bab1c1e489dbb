#!/usr/bin/env node
// `mutate --in-diff` benchmark on the reference engine: a planted ~30-line change to native/engine/src/moe.cpp
// (scripts/ci/plant-in-diff.mjs), measured two ways from cold scratch workspaces, cache off:
//   A: --jobs 2, incremental rebuilds (the gate as CI runs it), every row
//   B: --jobs 1, a wiped and reconfigured build dir for every build (serial full rebuilds), on --shard 1/S
//      of the rows only (a full rebuild costs about a minute per build, two builds per mutant)
// Prints mutants per minute for each arm (rows judged / wall minutes, baseline builds included, and
// without them), the ratio A/B, the verdicts of the rows both arms ran, and the share of generated rows
// that were UNVIABLE or equivalent-by-binary (NOT_REBUILT).
// Usage: node bench/mutate-in-diff-bench.mjs [--jobs 2] [--slow-shard 6] [--out FILE]
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const jobs = opt('--jobs', '2');
const slowShard = Number(opt('--slow-shard', '6'));
const out = resolve(opt('--out', join(repo, '.nh-gate', 'bench', 'mutate-in-diff-bench.json')));
const base = join(repo, '.nh-gate', 'bench', 'in-diff');
rmSync(base, { recursive: true, force: true });
const root = join(base, 'repo');
const plant = spawnSync(process.execPath, [join(repo, 'scripts', 'ci', 'plant-in-diff.mjs'), root], { encoding: 'utf8' });
if (plant.status !== 0) throw new Error(`plant-in-diff failed: ${plant.stderr}`);

function arm(name, extra) {
  const ws = join(base, `ws-${name}`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(repo, 'bin', 'nh-gate.js'), 'mutate', '--table', 'gates/nh-ref/mutations.json', '--in-diff', 'HEAD~1', '--no-cache', '--workspace', ws, '--json', ...extra], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  let doc;
  try { doc = JSON.parse(r.stdout); } catch { throw new Error(`${name}: no JSON on stdout (exit ${r.status}): ${r.stderr.slice(-2000)}`); }
  const baselineS = Math.max(...doc.baselines.map((b) => b.buildS));
  const gen = doc.rows.filter((x) => x.origin);
  const rate = (n, s) => (s > 0 ? (n * 60) / s : null);
  const res = {
    name, argv: extra, exitCode: r.status, wallS, baselineBuildS: baselineS, rows: doc.rows.length, generated: gen.length,
    mutantsPerMin: rate(doc.rows.length, wallS), mutantsPerMinAfterBaseline: rate(doc.rows.length, wallS - baselineS),
    unviable: gen.filter((x) => x.reason === 'UNVIABLE').length, notRebuilt: gen.filter((x) => x.reason === 'NOT_REBUILT').length,
    verdicts: Object.fromEntries(doc.rows.map((x) => [x.id, x.reason ? `${x.verdict} ${x.reason}` : x.verdict])),
    userTreeUnchanged: doc.userTree.unchanged,
  };
  process.stderr.write(`${name}: ${wallS.toFixed(1)} s wall (baseline build ${baselineS.toFixed(1)} s), ${res.rows} rows, exit ${r.status}\n`);
  rmSync(ws, { recursive: true, force: true });
  return res;
}

const fast = arm('incremental', ['--jobs', jobs]);
const slow = arm('full', ['--jobs', '1', '--full-rebuild', '--shard', `1/${slowShard}`]);
const common = Object.keys(slow.verdicts).filter((id) => id in fast.verdicts);
const differ = common.filter((id) => fast.verdicts[id] !== slow.verdicts[id]);
const ratio = fast.mutantsPerMin / slow.mutantsPerMin;
const share = (n) => (fast.generated ? (100 * n) / fast.generated : 0);
const result = { host: { cpus: availableParallelism() }, fast, slow, ratio, commonRows: common.length, differ, at: new Date().toISOString() };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
const f = (x) => (x === null ? 'n/a' : x.toFixed(2));
process.stdout.write([
  `--jobs ${jobs} incremental: ${f(fast.mutantsPerMin)} mutants/min (${fast.rows} rows / ${fast.wallS.toFixed(1)} s wall; ${f(fast.mutantsPerMinAfterBaseline)}/min after the ${fast.baselineBuildS.toFixed(1)} s baseline build)`,
  `--jobs 1 full rebuilds:  ${f(slow.mutantsPerMin)} mutants/min (${slow.rows} rows of shard 1/${slowShard} / ${slow.wallS.toFixed(1)} s wall; ${f(slow.mutantsPerMinAfterBaseline)}/min after the ${slow.baselineBuildS.toFixed(1)} s baseline build)`,
  `speed-up ${f(ratio)}x (mutants/min, incremental / full); verdicts of the ${common.length} rows both ran: ${differ.length ? `DIFFER on ${differ.join(', ')}` : 'identical'}`,
  `generated rows: ${fast.generated}; unviable ${fast.unviable} (${share(fast.unviable).toFixed(1)}%), equivalent-by-binary ${fast.notRebuilt} (${share(fast.notRebuilt).toFixed(1)}%); ${out}`,
  '',
].join('\n'));
if (differ.length) process.exitCode = 1;

#!/usr/bin/env node
// Suite-target builds against whole builds, on a real engine: `mutate --in-diff HEAD~1` over the planted
// min-p change to llama.cpp's sampler (scripts/ci/plant-llama.mjs), judged by llama.cpp's test-sampling
// (CTest). Two arms from cold scratch workspaces, --jobs 1, result cache off, the same rows (--shard 1/S):
//   targets: each mutant builds test-sampling's target only (the gate's rule: the suite names its targets)
//   whole:   each mutant builds every target of the tests-on configure (--whole-build): the library, every
//            test, the tools and the server, as a recipe without suite targets does
// ccache stays on as in CI; the targets arm runs first, so the whole arm finds the mutants' objects in the
// cache and the ratio is, if anything, in the whole arm's favour. Prints mutants per minute for each
// (rows / wall minutes, and after the baseline build), the ratio, and whether the verdicts agree.
// Usage: node bench/mutate-targets-bench.mjs [--shard 3] [--out FILE]   (needs bash scripts/ci/llama-cpp.sh)
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const shard = Number(opt('--shard', '3'));
const out = resolve(opt('--out', join(repo, '.nh-gate', 'bench', 'mutate-targets-bench.json')));
const base = join(repo, '.nh-gate', 'bench', 'targets');
rmSync(base, { recursive: true, force: true });
const root = join(base, 'repo');
const plant = spawnSync(process.execPath, [join(repo, 'scripts', 'ci', 'plant-llama.mjs'), root], { encoding: 'utf8' });
if (plant.status !== 0) throw new Error(`plant-llama failed: ${plant.stderr}`);

function arm(name, extra) {
  const ws = join(base, `ws-${name}`);
  const t0 = process.hrtime.bigint();
  const argv = ['mutate', '--table', 'gates/llama-cpp/mutations.json', '--in-diff', 'HEAD~1', '--no-cache', '--jobs', '1', '--shard', `1/${shard}`, '--workspace', ws, '--json', ...extra];
  const r = spawnSync(process.execPath, [join(repo, 'bin', 'nh-gate.js'), ...argv], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  let doc;
  try { doc = JSON.parse(r.stdout); } catch { throw new Error(`${name}: no JSON on stdout (exit ${r.status}): ${r.stderr.slice(-2000)}`); }
  const baselineS = Math.max(...doc.baselines.map((b) => b.buildS));
  const rate = (n, s) => (s > 0 ? (n * 60) / s : null);
  const mutantBuildS = doc.rows.reduce((s, x) => s + (x.buildS ?? 0), 0);
  const res = {
    name, argv, exitCode: r.status, wallS, baselineBuildS: baselineS, rows: doc.rows.length, mutantBuildS,
    mutantsPerMin: rate(doc.rows.length, wallS), mutantsPerMinAfterBaseline: rate(doc.rows.length, wallS - baselineS),
    verdicts: Object.fromEntries(doc.rows.map((x) => [x.id, x.reason ? `${x.verdict} ${x.reason}` : x.verdict])),
    userTreeUnchanged: doc.userTree.unchanged,
  };
  process.stderr.write(`${name}: ${wallS.toFixed(1)} s wall (baseline build ${baselineS.toFixed(1)} s, mutant builds ${mutantBuildS.toFixed(1)} s), ${res.rows} rows, exit ${r.status}\n`);
  rmSync(ws, { recursive: true, force: true });
  return res;
}

const targets = arm('targets', []);
const whole = arm('whole', ['--whole-build']);
const ids = Object.keys(targets.verdicts);
const differ = ids.filter((id) => whole.verdicts[id] !== targets.verdicts[id]);
const ratio = targets.mutantsPerMin / whole.mutantsPerMin;
const ratioAfter = targets.mutantsPerMinAfterBaseline / whole.mutantsPerMinAfterBaseline;
const result = { host: { cpus: availableParallelism() }, targets, whole, ratio, ratioAfterBaseline: ratioAfter, differ, at: new Date().toISOString() };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
const f = (x) => (x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(2));
const line = (a) => `${f(a.mutantsPerMin)} mutants/min (${a.rows} rows / ${a.wallS.toFixed(1)} s wall; ${f(a.mutantsPerMinAfterBaseline)}/min after the ${a.baselineBuildS.toFixed(1)} s baseline build; mutant builds ${a.mutantBuildS.toFixed(1)} s)`;
process.stdout.write([
  `suite targets (test-sampling): ${line(targets)}`,
  `whole build (--whole-build):   ${line(whole)}`,
  `speed-up ${f(ratio)}x (${f(ratioAfter)}x after the baseline builds); verdicts of the ${ids.length} rows: ${differ.length ? `DIFFER on ${differ.join(', ')}` : 'identical'}; ${out}`,
  '',
].join('\n'));
if (differ.length) process.exitCode = 1;

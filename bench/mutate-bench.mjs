#!/usr/bin/env node
// Mutation-gate benchmark: the same table, measured twice in one run from cold scratch workspaces —
//   A: --jobs 2 with incremental rebuilds (the gate as CI runs it)
//   B: --jobs 1 with a wiped, reconfigured build dir for every build (serial full rebuilds)
// and the wall-time ratio B/A, printed with both terms. Both arms must reach the same verdicts.
// Usage: node bench/mutate-bench.mjs [--table gates/nh-ref/mutations.json] [--jobs 2] [--out FILE]
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const table = opt('--table', 'gates/nh-ref/mutations.json');
const jobs = opt('--jobs', '2');
const out = resolve(opt('--out', join('.nh-gate', 'bench', 'mutate-bench.json')));
const root = process.cwd();

function arm(name, extra) {
  const ws = join(root, '.nh-gate', 'bench', `mutate-${name}`);
  rmSync(ws, { recursive: true, force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(repo, 'bin', 'nh-gate.js'), 'mutate', '--table', table, '--workspace', ws, '--json', ...extra], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  let doc;
  try { doc = JSON.parse(r.stdout); } catch { throw new Error(`${name}: no JSON on stdout (exit ${r.status}): ${r.stderr.slice(-2000)}`); }
  const verdicts = Object.fromEntries(doc.rows.map((x) => [x.id, x.reason ? `${x.verdict} ${x.reason}` : x.verdict]));
  const buildS = doc.rows.reduce((s, x) => s + (x.buildS ?? 0), 0) + doc.baselines.reduce((s, b) => s + b.buildS, 0);
  process.stderr.write(`${name}: ${wallS.toFixed(1)} s wall, exit ${r.status}, ${doc.rows.length} rows\n`);
  rmSync(ws, { recursive: true, force: true });
  return { name, argv: extra, exitCode: r.status, wallS, buildS, verdicts };
}

const fast = arm('incremental', ['--jobs', jobs]);
const slow = arm('full', ['--jobs', '1', '--full-rebuild']);
const same = JSON.stringify(fast.verdicts) === JSON.stringify(slow.verdicts);
const ratio = slow.wallS / fast.wallS;
const result = { table, host: { cpus: (await import('node:os')).availableParallelism() }, fast, slow, ratio, sameVerdicts: same, at: new Date().toISOString() };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
process.stdout.write(`speed-up ${ratio.toFixed(2)}x (serial full rebuilds ${slow.wallS.toFixed(1)} s / --jobs ${jobs} incremental ${fast.wallS.toFixed(1)} s), verdicts ${same ? 'identical' : 'DIFFER'}; ${out}\n`);
if (!same) {
  for (const id of Object.keys(fast.verdicts)) if (fast.verdicts[id] !== slow.verdicts[id]) process.stdout.write(`  ${id}: ${fast.verdicts[id]} vs ${slow.verdicts[id]}\n`);
  process.exitCode = 1;
}

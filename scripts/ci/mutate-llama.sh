#!/usr/bin/env bash
# CI: `nh-gate mutate --in-diff HEAD~1` on a real engine. A scratch repository holds llama.cpp's source
# (scripts/ci/llama-cpp.sh's clone), the llama-cpp recipe and gates/llama-cpp/; a planted commit moves
# min-p's unsorted path of src/llama-sampler.cpp into a helper (scripts/ci/plant-llama.mjs). The rows are
# judged by llama.cpp's own CTest test test-sampling, read from its --output-junit report, each mutant
# building only that test's target. Checks the proofs (self-test CAUGHT by its named case, every judged
# row restored to its baseline binary, the scratch build holding test-sampling and not llama-server, the
# tree byte-identical) and prints the figures. Survivors are this planted change's finding, not a failure.
# Needs llama.cpp's source (bash scripts/ci/llama-cpp.sh) and ccache to be quick (CI keeps its cache).
# Run from the repo root: bash scripts/ci/mutate-llama.sh
set -euo pipefail
repo="$(pwd)"
test -f dist/cli/commands/mutate.js || npx tsc -p tsconfig.build.json
test -f .cache/llama.cpp/src/src/llama-sampler.cpp || { echo "mutate-llama: no llama.cpp source: run bash scripts/ci/llama-cpp.sh first" >&2; exit 2; }
work="$repo/.nh-gate/ci/mutate-llama"
rm -rf "$work"
mkdir -p "$work"
node scripts/ci/plant-llama.mjs "$work/repo" >/dev/null
cd "$work/repo"
before="$(git rev-parse HEAD)"
t0=$(date +%s)
set +e
node "$repo/bin/nh-gate.js" mutate --table gates/llama-cpp/mutations.json --in-diff HEAD~1 --jobs 2 --json > "$work/result.json" 2> "$work/stderr.txt"
code=$?
set -e
t1=$(date +%s)
node - "$work/result.json" "$code" "$((t1 - t0))" "$work/repo/.nh-gate/mutate/llama-cpp/tree-0/.cache/llama.cpp/build-cpu" <<'JS' || { tail -20 "$work/stderr.txt" >&2; exit 1; }
const fs = require('node:fs');
const [file, code, wallS, build] = process.argv.slice(2);
let d;
try { d = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { console.error(`mutate-llama: exit ${code} without a JSON document`); process.exit(1); }
const bad = [];
if (!['0', '1'].includes(code)) bad.push(`exit ${code}: expected 0 (all caught) or 1 (survivors reported)`);
const self = d.rows.find((r) => r.id === 'temp-zero-not-greedy');
if (!self || self.verdict !== 'CAUGHT' || !(self.suite?.counts?.failingCases ?? []).includes('test-sampling')) bad.push(`self-test not CAUGHT by test-sampling: ${self ? `${self.verdict} ${self.detail}` : 'missing'}`);
if (self?.suite?.counts?.source !== 'junit') bad.push('test-sampling was not read from its CTest JUnit report');
const gen = d.rows.filter((r) => r.origin);
const n = (f) => gen.filter(f).length;
if (gen.length < 6) bad.push(`only ${gen.length} generated rows`);
for (const r of d.rows.filter((x) => x.verdict === 'CAUGHT' || x.verdict === 'SURVIVED')) {
  const base = d.baselines.find((b) => b.tree === r.tree)?.binarySha?.[r.mutation.suite];
  if (!base || r.restoreSha !== base || r.binarySha === base) bad.push(`${r.id}: proofs do not hold (binary ${r.binarySha}, restored ${r.restoreSha}, baseline ${base})`);
}
if (!fs.existsSync(`${build}/bin/test-sampling`) || fs.existsSync(`${build}/bin/llama-server`)) bad.push('the scratch build is not test-sampling alone (suite-target builds)');
if (!d.userTree.unchanged) bad.push('user tree changed');
const lines = d.survivors.map((s) => s.line).join(', ');
console.log(`mutate llama.cpp (${d.generation.files.map((f) => f.file.split('/').pop()).join(', ')} via test-sampling): ${gen.length} mutants, ${n((r) => r.verdict === 'CAUGHT')} caught, ${d.survivors.length} survivors${lines ? ` at lines ${lines}` : ''}, ${n((r) => r.reason === 'UNVIABLE')} unviable, ${n((r) => r.reason === 'NOT_REBUILT')} equivalent by binary, ${n((r) => r.verdict === 'VOID' && !r.excluded)} other VOID; ${(Number(wallS) / 60).toFixed(1)} min (${d.jobs} trees)`);
if (bad.length) { console.error(`mutate-llama CI check FAILED:\n  ${bad.join('\n  ')}`); process.exit(1); }
JS
test -z "$(git status --porcelain)" || { echo "scratch tree not byte-identical to its commit" >&2; exit 1; }
test "$(git rev-parse HEAD)" = "$before"
echo "mutate-llama: OK"

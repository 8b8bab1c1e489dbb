#!/usr/bin/env bash
# CI: `nh-gate mutate --in-diff HEAD~1` on the reference engine against a planted commit (a ~30-line
# change to the MoE routing code of native/engine/src/moe.cpp in a scratch clone). Checks through the
# CLI that rows were generated, the meaningful ones CAUGHT by the MoE cases, survivors reported by
# file:line (exit 1 is the expected verdict of this planted change), and the tree byte-identical.
# Needs cmake, ninja, g++ and doctest-dev (already required by the engine's own CI). About 3 min on 2 cores.
# Run from the repo root: bash scripts/ci/mutate-in-diff.sh
set -euo pipefail
repo="$(pwd)"
test -f dist/cli/commands/mutate.js || npx tsc -p tsconfig.build.json
work="$repo/.nh-gate/ci/mutate-in-diff"
rm -rf "$work"
mkdir -p "$work"
node scripts/ci/plant-in-diff.mjs "$work/repo" >/dev/null
cd "$work/repo"
before="$(git rev-parse HEAD)"
set +e
node "$repo/bin/nh-gate.js" mutate --table gates/nh-ref/mutations.json --in-diff HEAD~1 --jobs 2 --json > "$work/result.json"
code=$?
node "$repo/bin/nh-gate.js" mutate --table gates/nh-ref/mutations.json --in-diff HEAD~1 --jobs 2 --format github > "$work/annotations.txt"
set -e
cat "$work/annotations.txt"
node - "$work/result.json" "$code" "$work/annotations.txt" <<'JS'
const fs = require('node:fs');
const [file, code, ann] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(file, 'utf8'));
const gen = d.rows.filter((r) => r.origin);
const caught = gen.filter((r) => r.verdict === 'CAUGHT');
const bad = [];
if (Number(code) !== 1) bad.push(`exit ${code}, expected 1 (the planted change has survivors)`);
if (gen.length < 15) bad.push(`only ${gen.length} generated rows`);
if (caught.length < 10) bad.push(`only ${caught.length} generated rows CAUGHT`);
for (const r of caught) for (const c of r.suite?.counts?.failingCases ?? []) if (!c.startsWith('MoE ')) bad.push(`${r.id} killed by '${c}', not a MoE case`);
if (d.survivors.length === 0 || d.survivors.some((s) => !(s.line > 0) || s.file !== 'native/engine/src/moe.cpp')) bad.push('survivors not reported by moe.cpp:line');
if (!d.userTree.unchanged) bad.push('user tree changed');
const warnings = fs.readFileSync(ann, 'utf8').split('\n').filter((l) => l.startsWith('::warning file=native/engine/src/moe.cpp,line='));
if (warnings.length !== d.survivors.length) bad.push(`${warnings.length} annotations for ${d.survivors.length} survivors`);
console.log(`mutate --in-diff: ${gen.length} generated, ${caught.length} caught, ${d.survivors.length} survivors at ${d.survivors.map((s) => s.line).join(', ')}; ${d.wallS.toFixed(1)} s`);
if (bad.length) { console.error(`mutate-in-diff CI check FAILED:\n  ${bad.join('\n  ')}`); process.exit(1); }
JS
test -z "$(git status --porcelain)" || { echo "scratch tree not byte-identical to its commit" >&2; exit 1; }
test "$(git rev-parse HEAD)" = "$before"
echo "mutate-in-diff: OK"

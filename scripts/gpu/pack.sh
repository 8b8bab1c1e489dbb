#!/usr/bin/env bash
# Prepares .carry/app/ for the H200 run (scripts/gpu/gates.sh): the compiled CLI (dist/), the RUNTIME
# closure of node_modules (package.json's dependencies and what they import — not cmake-js,
# node-addon-api or dev tools), and the NVML addon built here (x86-64, dlopens libnvidia-ml at run time).
# Everything goes into one app.tar.xz so the carried folder stays a few MB.
# Usage (repo root, after npm ci): scripts/gpu/pack.sh ; then carry .carry/app, .device, .carry/doctest, .carry/doctest-cmake
set -euo pipefail
cd "$(dirname "$0")/../.."
npx tsc -p tsconfig.build.json
# Always (incremental): a .node left from before a native change would be packed stale. It must load with the
# ABI this dist expects, or the GPU host would sample with another sampler than the one under test.
node scripts/build-addon.mjs --quiet
node --input-type=module -e '
const { loadAddon } = await import(process.cwd() + "/dist/sampler/load.js");
const a = loadAddon();
if (!a.ok) { process.stderr.write(`pack: the addon is not usable: ${a.reason}\n`); process.exit(1); }'
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -a dist "$stage/dist"
mkdir -p "$stage/node_modules"
# Walk "dependencies" from the runtime roots through the flat node_modules tree.
node --input-type=module -e '
import { readFileSync, existsSync } from "node:fs";
// The runtime roots: the dependencies in package.json minus the build-only ones (a hand list went stale once).
const roots = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).dependencies).filter((d) => !["cmake-js", "node-addon-api"].includes(d));
const seen = new Set();
const walk = (name) => {
  if (seen.has(name)) return;
  const pj = `node_modules/${name}/package.json`;
  if (!existsSync(pj)) { process.stderr.write(`pack: ${name} is not in node_modules (run npm ci)\n`); process.exit(1); }
  seen.add(name);
  for (const d of Object.keys(JSON.parse(readFileSync(pj, "utf8")).dependencies ?? {})) walk(d);
};
roots.forEach(walk);
process.stdout.write([...seen].join("\n") + "\n");
' > "$stage/modules.txt"
while read -r m; do
  mkdir -p "$stage/node_modules/$(dirname "$m")"
  cp -a "node_modules/$m" "$stage/node_modules/$m"
done < "$stage/modules.txt"
if [ -f native/addon/build/Release/nh_nvml.node ]; then
  mkdir -p "$stage/addon" && cp native/addon/build/Release/nh_nvml.node "$stage/addon/"
fi
rm -rf .carry/app && mkdir -p .carry/app
tar -C "$stage" -cJf .carry/app/app.tar.xz dist node_modules $( [ -d "$stage/addon" ] && echo addon )
git rev-parse HEAD > .carry/app/PACKED_FROM 2>/dev/null || true
echo "pack: $(wc -l < "$stage/modules.txt") modules; .carry/app/app.tar.xz $(du -h .carry/app/app.tar.xz | cut -f1)"

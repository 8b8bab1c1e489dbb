#!/usr/bin/env node
// Builds the NVML addon (native/addon → native/addon/build/Release/nh_nvml.node) with cmake-js.
// Wired as the package's "install" script: it NEVER fails the install. Without the addon nh-gate
// still works and says "native sampler unavailable: <reason>", falling back to nvidia-smi, then NOT MEASURED.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const addonDir = join(root, 'native', 'addon');
const outAt = process.argv.indexOf('--out');
// --out DIR builds elsewhere (tests use it so a failing build never cleans the shared build folder).
const out = outAt > 0 ? process.argv[outAt + 1] : join(addonDir, 'build');
const target = join(out, 'Release', 'nh_nvml.node');
const quiet = process.argv.includes('--quiet');

function unavailable(reason) {
  process.stderr.write(`native sampler unavailable: ${reason}\n`);
  process.exit(0);
}

if (process.env.NH_GATE_SKIP_ADDON === '1') unavailable('NH_GATE_SKIP_ADDON=1 (build skipped)');
if (process.platform !== 'linux') unavailable(`NVML sampling is built for Linux only (this is ${process.platform})`);
if (!existsSync(join(addonDir, 'CMakeLists.txt'))) unavailable(`${addonDir}/CMakeLists.txt is missing`);

let cli;
try {
  cli = createRequire(import.meta.url).resolve('cmake-js/bin/cmake-js');
} catch {
  unavailable('cmake-js is not installed (npm dependency missing)');
}
const r = spawnSync(process.execPath, [cli, 'compile', '-d', addonDir, '-O', out, ...(quiet ? ['--log-level', 'error'] : [])], {
  cwd: root,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'pipe'],
});
if (r.error) unavailable(`cmake-js could not run: ${r.error.message}`);
if (r.status !== 0) {
  const text = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /error|not found|could not|fatal/i.test(l));
  unavailable(`the addon build failed (exit ${r.status}): ${text.slice(0, 3).join(' | ') || 'see cmake-js output'}`);
}
if (!existsSync(target)) unavailable(`the build finished but ${target} is missing`);
try {
  const b = createRequire(import.meta.url)(target);
  const p = b.probe();
  if (!quiet) process.stderr.write(`native sampler built: ${target} (NVML ${p.available ? `available: ${p.library}` : `not available here: ${p.message}`})\n`);
} catch (e) {
  unavailable(`${target} was built but does not load: ${e instanceof Error ? e.message : String(e)}`);
}

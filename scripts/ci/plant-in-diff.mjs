#!/usr/bin/env node
// Makes a scratch git repository holding the reference engine (native/engine), its recipe and its
// mutation gate files, commits it, then commits a planted change, so `nh-gate mutate --in-diff HEAD~1`
// has a real change to judge: by default ~20 lines of the MoE routing code of native/engine/src/moe.cpp;
// with --change mamba-gate, the Mamba gate y * silu(z) moved into a helper whose loop bound, flipped to
// <=, writes one float past its buffer (a survivor only a sanitizer build sees); with --device (or
// --change device), three lines of the device scan kernel (native/engine/cuda/device_mamba.cu), the shape
// of the H200 run that found nvcc's per-compile names (scripts/gpu/mutate-device.sh).
// Used by test/mutate/in-diff.e2e.test.ts, test/mutate/sanitizer.e2e.test.ts, scripts/ci/mutate-in-diff.sh,
// scripts/gpu/mutate-device.sh and bench/mutate-in-diff-bench.mjs.
// Usage: node scripts/ci/plant-in-diff.mjs DIR [--change moe|mamba-gate|device | --device]   (DIR must not exist or be empty)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = resolve(process.argv[2] ?? '');
const change = process.argv[3] === '--device' ? 'device' : process.argv[3] === '--change' ? process.argv[4] : 'moe';
if (!process.argv[2] || !['moe', 'mamba-gate', 'device'].includes(change)) { process.stderr.write('usage: plant-in-diff.mjs DIR [--change moe|mamba-gate|device | --device]\n'); process.exit(2); }
if (existsSync(dir) && readdirSync(dir).length > 0) { process.stderr.write(`plant-in-diff: ${dir} is not empty\n`); process.exit(2); }
mkdirSync(dir, { recursive: true });
const skip = (p) => /\/(build[^/]*|cmake-build[^/]*)(\/|$)/.test(p.slice(join(repo, 'native', 'engine').length));
cpSync(join(repo, 'native', 'engine'), join(dir, 'native', 'engine'), { recursive: true, filter: (p) => !skip(p) });
for (const f of ['recipes/nh-ref.json', 'gates/nh-ref/mutations.json', 'gates/nh-ref/in-diff.json']) {
  mkdirSync(dirname(join(dir, f)), { recursive: true });
  cpSync(join(repo, f), join(dir, f));
}
writeFileSync(join(dir, '.gitignore'), '.nh-gate/\n');
const git = (...a) => execFileSync('git', ['-c', 'user.email=ci@nh-gate', '-c', 'user.name=nh-gate ci', ...a], { cwd: dir, stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('commit', '-q', '-m', 'engine as shipped');

if (change === 'device') {
  // Behaviour unchanged (the same float operations in the same order); three changed lines of device code.
  const cu = join(dir, 'native', 'engine', 'cuda', 'device_mamba.cu');
  const from = `    const float dt = dSoftplus(dtRaw[size_t(t) * dtStride + h] + dtBias[h]);
    const float a = expf(dt * A);
    const float xv = row[h * P + p];
`;
  const src = readFileSync(cu, 'utf8');
  if (src.split(from).length !== 2) { process.stderr.write('plant-in-diff: the scan kernel lines are not in device_mamba.cu exactly once\n'); process.exit(70); }
  writeFileSync(cu, src.replace(from, `    const float dtIn = dtRaw[size_t(t) * dtStride + h] + dtBias[h];
    const float dt = dSoftplus(dtIn), a = expf(dt * A);
    const float xv = row[size_t(h) * P + p];
`));
  git('add', '-A');
  git('commit', '-q', '-m', 'device scan: dt input named, a beside dt');
  process.stdout.write(`${dir}\n`);
  process.exit(0);
}

const file = join(dir, 'native', 'engine', 'src', change === 'moe' ? 'moe.cpp' : 'mamba.cpp');
let text = readFileSync(file, 'utf8');
const edit = (from, to) => {
  if (text.split(from).length !== 2) { process.stderr.write(`plant-in-diff: anchor not found exactly once in ${file}: ${from}\n`); process.exit(70); }
  text = text.replace(from, to);
};
if (change === 'mamba-gate') {
  edit(`// y * silu(z) -> rmsnorm over dInner -> out_proj.
void gatedOut(`, `// The gate, y * silu(z), into g: dI values.
void gate(const float* y, const float* z, float* g, int dI) {
  for (int i = 0; i < dI; ++i) g[i] = y[i] * silu(z[i]);
}

// y * silu(z) -> rmsnorm over dInner -> out_proj.
void gatedOut(`);
  edit(`  for (int i = 0; i < dI; ++i) g[i] = y[i] * silu(z[i]);
  rmsnorm(`, `  gate(y, z, g.data(), dI);
  rmsnorm(`);
  writeFileSync(file, text);
  git('add', '-A');
  git('commit', '-q', '-m', 'mamba: the gate as a helper');
  process.stdout.write(`${dir}\n`);
  process.exit(0);
}

// The planted change: the routed weights move into a helper with a zero-sum guard, and the expert's
// squared ReLU into another. Behaviour is unchanged; every changed line is new code the suite must cover.
edit('namespace nhref {\n', `namespace nhref {

namespace {

// The routed weights: each chosen expert's score over the sum of the chosen scores.
std::vector<float> routedWeights(const float* scores, const std::vector<int>& experts) {
  float sum = 0.0f;
  for (size_t k = 0; k < experts.size(); ++k) sum += scores[experts[k]];
  std::vector<float> weights;
  weights.reserve(experts.size());
  for (size_t k = 0; k < experts.size(); ++k) {
    const float share = sum > 0.0f ? scores[experts[k]] / sum : 1.0f / float(experts.size());
    weights.push_back(share);
  }
  return weights;
}

// The expert's activation, in place: relu(x)^2.
void squaredRelu(std::vector<float>& h) {
  for (size_t f = 0; f < h.size(); ++f) {
    const float relu = std::max(h[f], 0.0f);
    h[f] = relu * relu;
  }
}

}  // namespace
`);
edit(`  float sum = 0.0f;
  for (int e : r.experts) sum += scores[e];
  for (int e : r.experts) r.weights.push_back(scores[e] / sum);
`, `  r.weights = routedWeights(scores, r.experts);
`);
edit(`    for (int f = 0; f < F; ++f) {
      const float relu = hidden[f] > 0.0f ? hidden[f] : 0.0f;
      hidden[f] = relu * relu;
    }
`, `    squaredRelu(hidden);
`);
edit('#include "ops.h"\n', '#include "ops.h"\n\n#include <algorithm>\n');
writeFileSync(file, text);
git('add', '-A');
git('commit', '-q', '-m', 'moe: routed weights and squared ReLU as helpers');
process.stdout.write(`${dir}\n`);

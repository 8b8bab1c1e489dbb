#!/usr/bin/env node
// Makes a scratch git repository holding llama.cpp's source (from .cache/llama.cpp/src, cloned by
// scripts/ci/llama-cpp.sh; without .git, docs/ and models/, which no build or test here reads), the
// llama-cpp recipe and its mutation gate files, commits it, then commits a planted change to real
// llama.cpp lines: min-p's unsorted path in src/llama-sampler.cpp moves into a helper. Behaviour is
// unchanged; every changed line is code llama.cpp's own test-sampling must cover.
// Used by scripts/ci/mutate-llama.sh and bench/mutate-targets-bench.mjs.
// Usage: node scripts/ci/plant-llama.mjs DIR   (DIR must not exist or be empty)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = resolve(process.argv[2] ?? '');
if (!process.argv[2]) { process.stderr.write('usage: plant-llama.mjs DIR\n'); process.exit(2); }
if (existsSync(dir) && readdirSync(dir).length > 0) { process.stderr.write(`plant-llama: ${dir} is not empty\n`); process.exit(2); }
const src = join(repo, '.cache', 'llama.cpp', 'src');
if (!existsSync(join(src, 'src', 'llama-sampler.cpp'))) { process.stderr.write(`plant-llama: no llama.cpp source at ${src}: run bash scripts/ci/llama-cpp.sh first\n`); process.exit(2); }
mkdirSync(dir, { recursive: true });
const SKIP = new Set(['.git', 'docs', 'models', 'media']);
cpSync(src, join(dir, '.cache', 'llama.cpp', 'src'), { recursive: true, filter: (p) => !SKIP.has(relative(src, p).split('/')[0]) });
for (const f of ['recipes/llama-cpp.json', 'gates/llama-cpp/mutations.json', 'gates/llama-cpp/in-diff.json']) {
  mkdirSync(dirname(join(dir, f)), { recursive: true });
  cpSync(join(repo, f), join(dir, f));
}
writeFileSync(join(dir, '.gitignore'), '.nh-gate/\n');
const git = (...a) => execFileSync('git', ['-c', 'user.email=ci@nh-gate', '-c', 'user.name=nh-gate ci', '-c', 'core.autocrlf=false', ...a], { cwd: dir, stdio: 'ignore' });
git('init', '-q');
git('add', '-A');
git('commit', '-q', '-m', 'llama.cpp as shipped');

const file = join(dir, '.cache', 'llama.cpp', 'src', 'src', 'llama-sampler.cpp');
let text = readFileSync(file, 'utf8');
const edit = (from, to) => {
  if (text.split(from).length !== 2) { process.stderr.write(`plant-llama: anchor not found exactly once in llama-sampler.cpp: ${from.split('\n')[0]}\n`); process.exit(70); }
  text = text.replace(from, to);
};
edit(`static void llama_sampler_min_p_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p) {
`, `// min-p over unsorted candidates: the tokens whose probability is at least p times the largest, in order.
static std::vector<llama_token_data> llama_sampler_min_p_keep(const llama_token_data_array * cur_p, float p) {
    float max_logit = -FLT_MAX;
    for (size_t i = 0; i < cur_p->size; ++i) {
        max_logit = std::max(max_logit, cur_p->data[i].logit);
    }
    const float min_logit = max_logit + logf(p); // min logit for p_i >= p * p_max

    std::vector<llama_token_data> kept;
    kept.reserve(cur_p->size);
    for (size_t i = 0; i < cur_p->size; ++i) {
        if (cur_p->data[i].logit >= min_logit) {
            kept.push_back(cur_p->data[i]);
        }
    }
    return kept;
}

static void llama_sampler_min_p_apply(struct llama_sampler * smpl, llama_token_data_array * cur_p) {
`);
edit(`    if (!cur_p->sorted) {
        std::vector<llama_token_data> filtered_tokens;

        float max_logit = -FLT_MAX;
        for (size_t i = 0; i < cur_p->size; ++i) {
            max_logit = std::max(max_logit, cur_p->data[i].logit);
        }
        const float min_logit = max_logit + logf(ctx->p); // min logit for p_i >= p * p_max

        for (size_t i = 0; i < cur_p->size; ++i) {
            if (cur_p->data[i].logit >= min_logit) {
                filtered_tokens.push_back(cur_p->data[i]);
            }
        }
`, `    if (!cur_p->sorted) {
        std::vector<llama_token_data> filtered_tokens = llama_sampler_min_p_keep(cur_p, ctx->p);
`);
writeFileSync(file, text);
git('add', '-A');
git('commit', '-q', '-m', 'sampler: min-p unsorted path as a helper');
process.stdout.write(`${dir}\n`);

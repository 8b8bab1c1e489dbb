#!/usr/bin/env bash
# Prepares .carry/llama/ for scripts/gpu/llama-cpp.sh (the GPU host has no network, npm or numpy):
#   llama-src.tar.xz  llama.cpp's tree at the bundle's commit (git archive; models/, docs/, media/, examples/,
#                     tests/, gguf-py/ left out: the server build needs none of them), about 8 MB
#   tiny-llama.gguf   nh-gate's tiny model, checked against its pinned sha256
#   COMMIT            the llama.cpp commit
# Usage (repo root, after scripts/ci/llama-cpp.sh and scripts/gpu/pack.sh):
#   scripts/gpu/pack-llama.sh ; then carry .device, .carry/app and .carry/llama
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=.cache/llama.cpp/src
[ -d "$SRC/.git" ] || { echo "pack-llama: $SRC is missing: run scripts/ci/llama-cpp.sh first" >&2; exit 2; }
rm -rf .carry/llama && mkdir -p .carry/llama
git -C "$SRC" archive --format=tar HEAD -- . ':!models' ':!docs' ':!media' ':!examples' ':!tests' ':!gguf-py' | xz -T0 -6 > .carry/llama/llama-src.tar.xz
git -C "$SRC" rev-parse HEAD > .carry/llama/COMMIT
python3 scripts/llama/make-tiny-gguf.py --out .carry/llama/tiny-llama.gguf --check
echo "pack-llama: llama.cpp $(cat .carry/llama/COMMIT); $(du -sh .carry/llama | cut -f1) in .carry/llama"

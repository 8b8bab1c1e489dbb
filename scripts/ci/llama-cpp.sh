#!/usr/bin/env bash
# Build llama.cpp's llama-server (CPU-only) from the git bundle inside node-llama-cpp@3.21.1,
# cached under .cache/llama.cpp so a re-run takes seconds. Also writes the tiny GGUF model.
# Usage: scripts/ci/llama-cpp.sh            (from the repo root; idempotent)
# Env:   LLAMA_CPP_CACHE (default .cache/llama.cpp), LLAMA_CPP_JOBS (default: nproc)
set -euo pipefail
NLC_VERSION=3.21.1
CACHE=${LLAMA_CPP_CACHE:-.cache/llama.cpp}
JOBS=${LLAMA_CPP_JOBS:-$(nproc)}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)

# Runs a long step with its whole output in LOG and a line on stderr for every twentieth of ninja's [n/m]
# steps (and the last), so a CI log shows a 35-minute build moving; on failure the log's last 40 lines.
progress() {
  local log=$1; shift
  "$@" 2>&1 | tee "$log" | awk 'BEGIN { last = -1 } /^\[[0-9]+\/[0-9]+\]/ { s = $1; gsub(/[][]/, "", s); split(s, p, "/"); b = int(20 * p[1] / p[2]);
    if (b != last || p[1] == p[2]) { print "llama-cpp.sh: build " $0; fflush(); last = b } }' >&2 || { tail -40 "$log"; return 1; }
}

# 0. numpy for the model writer and the float64 oracle (Debian 12: python3-numpy; CI runs as root)
if ! python3 -c 'import numpy' 2>/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy >/dev/null || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy >/dev/null; }
  else
    echo "llama-cpp.sh: python3 has no numpy; install python3-numpy" >&2; exit 2
  fi
fi

# 1. the npm package (cached tarball)
TGZ="$CACHE/node-llama-cpp-$NLC_VERSION.tgz"
if [ ! -s "$TGZ" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack "node-llama-cpp@$NLC_VERSION" --silent >/dev/null)
  mv "$tmp/node-llama-cpp-$NLC_VERSION.tgz" "$TGZ"
  rm -rf "$tmp"
fi

# 2. the llama.cpp source, cloned from the bundle
SRC="$CACHE/src"
if [ ! -f "$SRC/tools/server/CMakeLists.txt" ]; then
  rm -rf "$CACHE/pkg" "$SRC"
  mkdir -p "$CACHE/pkg"
  tar -xzf "$TGZ" -C "$CACHE/pkg" package/llama/gitRelease.bundle
  git clone --quiet "$CACHE/pkg/package/llama/gitRelease.bundle" "$SRC"
  rm -rf "$CACHE/pkg"
fi
git -C "$SRC" rev-parse HEAD > "$CACHE/commit.txt"

# 3. llama-server, CPU-only
BUILD="$CACHE/build-cpu"
if [ ! -x "$BUILD/bin/llama-server" ]; then
  echo "llama-cpp.sh: configuring llama.cpp (log: $CACHE/configure.log)" >&2
  progress "$CACHE/configure.log" cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DBUILD_SHARED_LIBS=OFF || exit 1
  echo "llama-cpp.sh: building llama-server with $JOBS job(s) (log: $CACHE/build.log)" >&2
  progress "$CACHE/build.log" cmake --build "$BUILD" --target llama-server -j "$JOBS" || exit 1
fi

# 4. the tiny model, written deterministically and checked against its pinned sha256
if [ -f scripts/llama/make-tiny-gguf.py ]; then
  python3 scripts/llama/make-tiny-gguf.py --out "$BUILD/tiny-llama.gguf" --check
fi
echo "llama-server: $BUILD/bin/llama-server (llama.cpp $(cat "$CACHE/commit.txt"))"

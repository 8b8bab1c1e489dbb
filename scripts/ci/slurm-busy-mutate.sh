#!/usr/bin/env bash
# CI step for busy and mutate through Slurm (issue 14, after scripts/ci/slurm.sh, which installs slurm-wlm
# and munge and runs test/slurm, busy-mutate.test.ts included): the figures of bench/slurm-mutate.mjs,
# mutate --jobs 2 local vs slurm side by side and busy's added cost, on the local cluster.
# Run from the repo root after `npm ci`: bash scripts/ci/slurm-busy-mutate.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f dist/slurm/runner.js ] || npm run build
export SLURM_CONF="$PWD/.cache/slurm/slurm.conf"
trap 'scripts/slurm/local-cluster.sh stop' EXIT
scripts/slurm/local-cluster.sh start
node bench/slurm-mutate.mjs --repeats 1 --busy 2

#!/usr/bin/env bash
# CI step for legs through Slurm (issue 14): install slurm-wlm and munge when missing, start the local
# two-node cluster (scripts/slurm/local-cluster.sh), run the Slurm tests against it, stop it however they end.
# Run from the repo root after `npm ci` (dist/ and the stand-in NVML must be built): bash scripts/ci/slurm.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive

missing=()
for pkg in slurm-wlm munge; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/slurm: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian starts the packaged daemons on install; this step runs its own on other ports and sockets.

[ -f dist/slurm/runner.js ] || npm run build
export SLURM_CONF="$PWD/.cache/slurm/slurm.conf"
trap 'scripts/slurm/local-cluster.sh stop' EXIT
scripts/slurm/local-cluster.sh start
scripts/slurm/local-cluster.sh status
# The cluster tests skip themselves when the cluster is down; here it must be up, so a skip is a failure.
npx vitest run test/slurm 2>&1 | tee .cache/slurm/vitest.log
if grep -q 'slurm cluster tests SKIPPED' .cache/slurm/vitest.log; then
  echo "ci/slurm: the cluster tests were skipped although the cluster was started" >&2
  exit 1
fi
node bench/slurm-overhead.mjs --legs 3

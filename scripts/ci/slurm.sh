#!/usr/bin/env bash
# CI step for legs through Slurm (issue 14): install slurm-wlm, munge, slurmdbd and mariadb-server when
# missing, start the local two-node cluster with accounting (scripts/slurm/local-cluster.sh), run the Slurm
# tests against it, stop it however they end.
# Run from the repo root after `npm ci` (dist/ and the stand-in NVML must be built): bash scripts/ci/slurm.sh
# NH_SLURM_STATE and NH_SLURM_CTLD_PORT choose the cluster's state directory and ports (see local-cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
export DEBIAN_FRONTEND=noninteractive

missing=()
for pkg in slurm-wlm munge slurmdbd mariadb-server; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ci/slurm: installing ${missing[*]}"
  t0=$SECONDS
  # Debian starts the packaged daemons (munged, slurmctld, slurmdbd, mariadb on the default socket and port)
  # on install unless policy-rc.d says no; this step runs its own on other ports and sockets, so for the
  # install it says no, as Docker images do.
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; policy=1; fi
  rc=0
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; } || rc=$?
  [ -z "$policy" ] || rm -f /usr/sbin/policy-rc.d
  [ $rc = 0 ] || exit $rc
  echo "ci/slurm: installed in $((SECONDS - t0)) s"
fi

[ -f dist/slurm/runner.js ] || npm run build
STATE=${NH_SLURM_STATE:-$PWD/.cache/slurm}
export SLURM_CONF="$STATE/slurm.conf"
trap 'scripts/slurm/local-cluster.sh stop' EXIT
t0=$SECONDS
scripts/slurm/local-cluster.sh start
echo "ci/slurm: cluster started in $((SECONDS - t0)) s"
scripts/slurm/local-cluster.sh status
# The cluster tests skip themselves when the cluster is down; here it must be up, so a skip is a failure.
npx vitest run test/slurm 2>&1 | tee "$STATE/vitest.log"
if grep -q 'slurm cluster tests SKIPPED' "$STATE/vitest.log"; then
  echo "ci/slurm: the cluster tests were skipped although the cluster was started" >&2
  exit 1
fi
# Likewise the accounting tests, when the cluster was started with slurmdbd.
if [ "$(cat "$STATE/accounting")" = slurmdbd ] && grep -q 'slurm accounting tests SKIPPED' "$STATE/vitest.log"; then
  echo "ci/slurm: the accounting tests were skipped although slurmdbd was started" >&2
  exit 1
fi
node bench/slurm-overhead.mjs --legs 3

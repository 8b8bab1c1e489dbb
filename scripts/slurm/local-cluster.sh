#!/usr/bin/env bash
# A real Slurm on localhost for tests and CI: its own munged, one slurmctld and two slurmd (-N n1, -N n2)
# standing for two hosts, a GPU GRES backed by a device file, and the stand-in NVML giving the two nodes
# different silicon (n1 "Fake H200" cc 9.0, n2 "Fake GB10" cc 12.1) through a TaskProlog. When slurmdbd and
# MariaDB are installed (and NH_SLURM_ACCOUNTING is not "off"), also accounting: a MariaDB of its own (own
# datadir, socket and port) and slurmdbd, so sacct answers; without them the cluster runs without accounting.
# Installs nothing (scripts/ci/slurm.sh does). All state lives in $NH_SLURM_STATE (default .cache/slurm).
# Ports: NH_SLURM_CTLD_PORT (default 16817) for slurmctld, +1/+2 the two slurmd, +3 slurmdbd, +4 MariaDB,
# so two clusters on one host need only different NH_SLURM_STATE and NH_SLURM_CTLD_PORT (at least 5 apart).
#   scripts/slurm/local-cluster.sh start    # idempotent: a running cluster is left running
#   scripts/slurm/local-cluster.sh status   # exit 0 when the controller answers and both nodes are up
#   scripts/slurm/local-cluster.sh stop     # stops every daemon this script started (by pid file)
#   scripts/slurm/local-cluster.sh env      # prints the SLURM_CONF line clients need
# Clients (sbatch, squeue, nh-gate, the tests) find it through SLURM_CONF=$NH_SLURM_STATE/slurm.conf. A script
# cannot export into the shell that ran it, so `start` and `env` print that export line on stdout, and
# `start`'s progress goes to stderr: `eval "$(scripts/slurm/local-cluster.sh start)"` starts the cluster and
# sets SLURM_CONF in one step.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
STATE=${NH_SLURM_STATE:-$ROOT/.cache/slurm}
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
CONF=$STATE/slurm.conf
SOCK=$STATE/munge/munge.socket
CTLD_PORT=${NH_SLURM_CTLD_PORT:-16817}
N1_PORT=$((CTLD_PORT + 1))
N2_PORT=$((CTLD_PORT + 2))
DBD_PORT=$((CTLD_PORT + 3))
DB_PORT=$((CTLD_PORT + 4))
DB=$STATE/mysql
FAKE_NVML=$ROOT/native/addon/build/Release/libfake-nvidia-ml.so
export SLURM_CONF=$CONF

# The one line a client shell needs, on stdout (everything else this script says goes to stderr from start).
client_env() { echo "export SLURM_CONF=$CONF"; }
# After a start: the line itself, and for a person reading stderr, how to use it.
started() {
  echo "local-cluster: $1 (SLURM_CONF=$CONF)$2" >&2
  echo "local-cluster: clients need SLURM_CONF: run  eval \"\$($0 env)\"  (or start with  eval \"\$($0 start)\")" >&2
  client_env
}

need() { command -v "$1" >/dev/null 2>&1 || { echo "local-cluster: $1 not found: install slurm-wlm and munge (scripts/ci/slurm.sh does: apt-get install slurm-wlm munge)" >&2; exit 2; }; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
# Accounting (MariaDB + slurmdbd): no_accounting, write_dbd_config, start_accounting, accounting_up.
# shellcheck source=scripts/slurm/accounting.sh
. "$ROOT/scripts/slurm/accounting.sh"

write_config() {
  mkdir -p "$STATE"/{munge,ctld,spool,log,run}
  chmod 700 "$STATE/munge"
  # A key of our own: the host's munged and key are never touched.
  [ -s "$STATE/munge/munge.key" ] || { dd if=/dev/urandom of="$STATE/munge/munge.key" bs=1024 count=1 status=none; chmod 600 "$STATE/munge/munge.key"; }
  local host; host=$(hostname -s)
  local acct="AccountingStorageType=accounting_storage/none"
  if [ -z "$(no_accounting)" ]; then
    acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
# The munge socket for talking to slurmdbd (AuthInfo is not used for that connection).
AccountingStoragePass=$SOCK"
    write_dbd_config
  fi
  cat >"$CONF" <<EOF
# Written by scripts/slurm/local-cluster.sh: a two-node Slurm on one host, for nh-gate's tests.
ClusterName=nhgate
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/spool/%n
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd-%n.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$STATE/task-prolog.sh
JobAcctGatherType=jobacct_gather/none
$acct
SchedulerType=sched/backfill
# Schedule a submitted batch job at once (Slurm's defaults wait up to ~1 s more per job; bench/slurm-overhead.mjs has both).
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
# Without slurmdbd there is no sacct: the controller must remember finished jobs for scontrol (an hour).
MinJobAge=3600
# A job past its --time is ended at once (no grace), SIGKILL 2 s after SIGTERM. slurmctld looks for jobs
# past their limit every 30 s, so a --time=1 job ends 60-90 s after it started.
OverTimeLimit=0
KillWait=2
# Preemption by partition: a job in the urgent partition (PriorityTier 10, never the default) cancels the
# jobs of the lower tiers on its nodes; they end PREEMPTED.
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
InactiveLimit=0
SlurmdTimeout=30
MessageTimeout=10
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$N1_PORT CPUs=1 RealMemory=1000 Gres=gpu:1 Feature=h200 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$N2_PORT CPUs=1 RealMemory=1000 Gres=gpu:1 Feature=gb10 State=UNKNOWN
PartitionName=gpu Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
PartitionName=h200 Nodes=n1 MaxTime=INFINITE State=UP
PartitionName=gb10 Nodes=n2 MaxTime=INFINITE State=UP
PartitionName=urgent Nodes=n1,n2 MaxTime=INFINITE PriorityTier=10 State=UP
EOF
  # One GPU per node, backed by a device file (there is no GPU; the GRES is what Slurm schedules).
  cat >"$STATE/gres.conf" <<EOF
NodeName=n1 Name=gpu File=/dev/null
NodeName=n2 Name=gpu File=/dev/null
EOF
  # The nodes' "hardware": what the stand-in NVML reports on each, exported into every task.
  cat >"$STATE/task-prolog.sh" <<EOF
#!/bin/sh
# Per-node silicon for the stand-in NVML (scripts/slurm/local-cluster.sh). A real site needs none of this.
[ -f "$FAKE_NVML" ] || exit 0
echo "export NH_GATE_NVML_LIBRARY=$FAKE_NVML"
case "\$SLURMD_NODENAME" in
  n1) echo "export FAKE_NVML_NAME=Fake H200"; echo "export FAKE_NVML_CC=9.0" ;;
  n2) echo "export FAKE_NVML_NAME=Fake GB10"; echo "export FAKE_NVML_CC=12.1" ;;
esac
EOF
  chmod 755 "$STATE/task-prolog.sh"
}

nodes_up() {
  local out; out=$(sinfo -h -N -o '%N %T' 2>/dev/null) || return 1
  for n in n1 n2; do echo "$out" | grep -Eq "^$n (idle|mixed|allocated|completing)" || return 1; done
}

start() {
  need munged; need slurmctld; need slurmd; need sinfo
  local why want; why=$(no_accounting)
  if [ -z "$why" ]; then want=slurmdbd; else want="none: $why"; fi
  # A cluster running with the other accounting setting is restarted: slurmctld reads it only at start.
  if alive "$STATE/run/slurmctld.pid" && [ "$(cat "$STATE/accounting" 2>/dev/null)" != "$want" ]; then
    echo "local-cluster: accounting changes to '$want': restarting" >&2; stop >/dev/null
  fi
  if alive "$STATE/run/slurmctld.pid" && nodes_up && { [ -n "$why" ] || accounting_up; }; then started "already running" ""; return 0; fi
  write_config
  if ! alive "$STATE/munge/munged.pid"; then
    munged --force --socket="$SOCK" --key-file="$STATE/munge/munge.key" --pid-file="$STATE/munge/munged.pid" \
      --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munged.seed" >&2
  fi
  if [ -z "$why" ]; then start_accounting >&2 || { stop >/dev/null; exit 1; }; fi
  echo "$want" >"$STATE/accounting"
  alive "$STATE/run/slurmctld.pid" || slurmctld -f "$CONF" -i >&2
  for n in n1 n2; do
    mkdir -p "$STATE/spool/$n"
    alive "$STATE/run/slurmd-$n.pid" || slurmd -f "$CONF" -N "$n" >&2
  done
  for _ in $(seq 1 60); do
    if nodes_up; then
      # A node left DOWN/DRAINED by an earlier test is returned to service.
      scontrol update nodename=n1,n2 state=resume >/dev/null 2>&1 || true
      started "up" ", accounting: $(cat "$STATE/accounting")"; return 0
    fi
    scontrol update nodename=n1,n2 state=resume >/dev/null 2>&1 || true
    sleep 0.5
  done
  echo "local-cluster: the nodes did not come up within 30 s; logs in $STATE/log" >&2
  sinfo -N >&2 || true
  tail -n 20 "$STATE"/log/*.log >&2 || true
  exit 1
}

stop() {
  local pids=()
  for f in "$STATE"/run/slurmd-*.pid "$STATE/run/slurmctld.pid" "$STATE/run/slurmdbd.pid" "$DB/mariadbd.pid" "$STATE/munge/munged.pid"; do
    [ -f "$f" ] || continue
    if kill -0 "$(cat "$f")" 2>/dev/null; then pids+=("$(cat "$f")"); kill "$(cat "$f")"; fi
  done
  for _ in $(seq 1 50); do
    local any=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && any=1; done
    [ $any = 0 ] && break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null || true; done
  rm -f "$STATE"/run/*.pid "$STATE/munge/munged.pid" "$DB/mariadbd.pid"
  echo "local-cluster: stopped ${#pids[@]} daemon(s)"
}

status() {
  if [ -f "$CONF" ] && alive "$STATE/run/slurmctld.pid" && nodes_up; then
    echo "local-cluster: running (SLURM_CONF=$CONF)"; sinfo -N -o '%N %P %T %G %f'
    if [ "$(cat "$STATE/accounting" 2>/dev/null)" = slurmdbd ]; then
      accounting_up || { echo "accounting: slurmdbd configured but not answering; see $STATE/log/slurmdbd.log"; return 1; }
      echo "accounting: slurmdbd on port $DBD_PORT, MariaDB on 127.0.0.1:$DB_PORT (sacct answers)"
    else
      echo "accounting: $(cat "$STATE/accounting" 2>/dev/null || echo none) (no sacct; scontrol answers)"
    fi
  else
    echo "local-cluster: not running"; return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) client_env ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac

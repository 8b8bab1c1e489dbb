# Accounting for the local Slurm cluster, sourced by scripts/slurm/local-cluster.sh (which sets STATE, SOCK,
# DB, DBD_PORT, DB_PORT and alive): a MariaDB of its own (own datadir, socket and port on 127.0.0.1, never
# the host's default server), slurmdbd on it, and the cluster registered with sacctmgr, so sacct answers.

# Why there is no accounting, or nothing when slurmdbd and MariaDB are there to give it.
no_accounting() {
  [ "${NH_SLURM_ACCOUNTING:-on}" = off ] && { echo "NH_SLURM_ACCOUNTING=off"; return; }
  for c in slurmdbd mariadbd mariadb-install-db mariadb mariadb-admin sacctmgr; do
    command -v "$c" >/dev/null 2>&1 || { echo "$c not found (apt-get install slurmdbd mariadb-server)"; return; }
  done
}

# slurmdbd.conf sits beside slurm.conf (slurmdbd finds it there through SLURM_CONF); MariaDB over TCP on
# 127.0.0.1:$DB_PORT, never the host's default socket or port.
write_dbd_config() {
  mkdir -p "$DB"
  chmod 700 "$DB"
  [ -s "$DB/slurm.pass" ] || { od -An -N12 -tx1 /dev/urandom | tr -d ' \n' >"$DB/slurm.pass"; chmod 600 "$DB/slurm.pass"; }
  (umask 077; cat >"$STATE/slurmdbd.conf" <<EOF
# Written by scripts/slurm/local-cluster.sh: accounting for nh-gate's test cluster.
AuthType=auth/munge
AuthInfo=socket=$SOCK
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
LogFile=$STATE/log/slurmdbd.log
PidFile=$STATE/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$(cat "$DB/slurm.pass")
StorageLoc=slurm_acct_db
EOF
)
}

db() { mariadb --no-defaults --socket="$DB/mysqld.sock" -u root "$@"; }

# MariaDB (own datadir, socket and port), then slurmdbd, then the cluster registered in it.
start_accounting() {
  if [ ! -d "$DB/data/mysql" ]; then
    rm -rf "$DB/data"
    mariadb-install-db --no-defaults --datadir="$DB/data" --user=root --auth-root-authentication-method=socket --skip-test-db >"$STATE/log/mariadb-install.log" 2>&1 \
      || { echo "local-cluster: mariadb-install-db failed; see $STATE/log/mariadb-install.log" >&2; return 1; }
  fi
  if ! alive "$DB/mariadbd.pid"; then
    setsid mariadbd --no-defaults --user=root --datadir="$DB/data" --socket="$DB/mysqld.sock" --port="$DB_PORT" --bind-address=127.0.0.1 \
      --pid-file="$DB/mariadbd.pid" --log-error="$STATE/log/mariadb.log" --skip-name-resolve --performance-schema=OFF \
      --innodb-buffer-pool-size=64M --innodb-log-file-size=48M --innodb-lock-wait-timeout=900 </dev/null >/dev/null 2>&1 &
  fi
  local ok=0
  for _ in $(seq 1 60); do mariadb-admin --no-defaults --socket="$DB/mysqld.sock" -u root ping >/dev/null 2>&1 && { ok=1; break; }; sleep 0.5; done
  [ $ok = 1 ] || { echo "local-cluster: MariaDB did not answer within 30 s; see $STATE/log/mariadb.log" >&2; return 1; }
  db -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db; CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$(cat "$DB/slurm.pass")'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
  alive "$STATE/run/slurmdbd.pid" || slurmdbd
  ok=0
  for _ in $(seq 1 60); do sacctmgr -n -P list cluster format=cluster >/dev/null 2>&1 && { ok=1; break; }; sleep 0.5; done
  [ $ok = 1 ] || { echo "local-cluster: slurmdbd did not answer within 30 s; see $STATE/log/slurmdbd.log" >&2; tail -n 20 "$STATE/log/slurmdbd.log" >&2 || true; return 1; }
  # The cluster and its root account (sacctmgr adds root's association with the cluster).
  sacctmgr -n -P list cluster format=cluster | grep -qx nhgate || sacctmgr -i add cluster nhgate >/dev/null
}

accounting_up() { alive "$STATE/run/slurmdbd.pid" && sacctmgr -n -P list cluster format=cluster 2>/dev/null | grep -qx nhgate; }

#!/usr/bin/env node
// The leg reaper: nh-gate starts one per process, in its own session, holding a pipe from the harness.
// The harness writes "watch <pgid> <startTicks> <marker>" when a leg's process group starts and "clear <pgid>"
// when it ends. When the pipe closes (the harness exited or was SIGKILLed) every watched group still alive whose
// leader is provably the one recorded (same pid, same start time) gets SIGTERM, then SIGKILL after a grace, and
// so does every process whose environment carries the leg's marker (NH_GATE_LEG=<marker>): a worker that left
// the group for a session of its own (src/exec/contain.ts).
// "job <id>" / "unjob <id>" name a Slurm allocation or job the harness holds: when the pipe closes, each still
// named is cancelled (scancel), so a SIGKILLed nh-gate does not leave a node held until the job's --time.
// Plain JS, no imports from src/: it must run the same from a checkout and from the published package.
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const GRACE_MS = Number(process.env.NH_GATE_REAPER_GRACE_MS ?? 2000);
const watched = new Map();
const markers = new Map();
const jobs = new Set();

// Pids whose initial environment carries NH_GATE_LEG=<one of the markers> (unreadable ones are not ours).
function marked(values) {
  if (values.size === 0) return [];
  const wanted = [...values].map((v) => Buffer.from(`\0NH_GATE_LEG=${v}\0`));
  const out = [];
  let names = [];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const env = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${name}/environ`), Buffer.from([0])]);
      if (wanted.some((w) => env.includes(w))) out.push(Number(name));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

function leaderTicks(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return rest[0] === 'Z' || rest[0] === 'X' ? null : Number(rest[19]);
  } catch {
    return null;
  }
}

function signal(pgid, sig) {
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  let nl;
  while ((nl = buf.indexOf('\n')) >= 0) {
    const [verb, pgid, ticks, marker] = buf.slice(0, nl).split(' ');
    buf = buf.slice(nl + 1);
    if (verb === 'watch') watched.set(Number(pgid), ticks === '-' ? null : Number(ticks));
    if (verb === 'watch' && marker && marker !== '-') markers.set(Number(pgid), marker);
    if (verb === 'clear') {
      watched.delete(Number(pgid));
      markers.delete(Number(pgid));
    }
    if (verb === 'job' && /^\d+$/.test(pgid)) jobs.add(pgid);
    if (verb === 'unjob') jobs.delete(pgid);
  }
});
// Listening: tell nh-gate (one byte on stdout), which waits for it before spawning the first process.
process.stdout.write('+');
process.stdin.on('end', () => {
  for (const id of jobs) spawnSync('scancel', [id], { stdio: 'ignore', timeout: 20_000 });
  // The leader's start time is checked before the group is signalled: a recycled pid is left alone.
  const doomed = [...watched].filter(([pgid, ticks]) => ticks === null || leaderTicks(pgid) === ticks).map(([pgid]) => pgid);
  const escaped = marked(new Set(markers.values()));
  const hit = (sig) => {
    for (const pgid of doomed) signal(pgid, sig);
    for (const pid of escaped) {
      try {
        process.kill(pid, sig);
      } catch {
        /* gone */
      }
    }
  };
  hit('SIGTERM');
  if (doomed.length === 0 && escaped.length === 0) process.exit(0);
  setTimeout(() => {
    hit('SIGKILL');
    process.exit(0);
  }, GRACE_MS);
});

import { reason } from '../verdict/reasons.js';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../exec/lock.js';
import { startTicks } from '../exec/procfs.js';
import { writeAtomic } from '../io/atomic.js';

// How far back a new run looks for runs whose harness died ("running" for ever otherwise).
const SCAN_RUNS = 200;
// Inside every run directory from its creation (write.ts): who made it, so a directory without result.json
// can be told from a run still in its build.
export const HARNESS_FILE = '.harness.json';
// The hidden name a run directory has for the instant before its identity is inside it.
export const NEW_PREFIX = '.new-';
// A run directory from an nh-gate older than HARNESS_FILE names nobody: it is judged dead only once nothing in
// it has changed for a day (no run spends that long before writing result.json).
export const LEGACY_AGE_MS = 24 * 3600 * 1000;
// Files that hold nothing of a run: its identity, the space reserve, a temp file of an atomic write.
const NOTHING = /^(\.harness\.json|\.reserve|.*\.tmp-\d+-\d+)$/;

// Who is writing a run: recorded in result.json so a later nh-gate can tell a run in progress from a dead one.
export interface HarnessIdentity {
  pid: number;
  host: string;
  startTicks: number | null;
}

// This process, as recorded in the result.json it writes.
export function thisHarness(): HarnessIdentity {
  return { pid: process.pid, host: hostname(), startTicks: startTicks(process.pid) };
}

// Pure: whether a recorded harness is provably gone. Another host's run is never judged from here.
export function harnessDead(h: HarnessIdentity, host: string, alive: boolean, ticksNow: number | null): boolean {
  if (h.host !== host) return false;
  if (!alive) return true;
  return h.startTicks !== null && ticksNow !== null && ticksNow !== h.startTicks;
}

function isDead(h: HarnessIdentity): boolean {
  return harnessDead(h, hostname(), pidAlive(h.pid), startTicks(h.pid));
}

// What is known of a run directory that has no result.json.
export interface UnfinishedDir {
  entries: string[];
  // Its HARNESS_FILE's identity (null: none, an older nh-gate's directory) and whether that harness is dead.
  harness: HarnessIdentity | null;
  dead: boolean;
  // Since anything in it last changed.
  idleMs: number;
}

export type DirAction = { action: 'leave' } | { action: 'remove'; why: string } | { action: 'mark'; why: string; kept: string[] };

// Pure: a directory without result.json is left while its harness may live, removed when it holds nothing
// of a run, and otherwise marked interrupted with what it kept.
export function judgeUnfinished(d: UnfinishedDir): DirAction {
  const who = d.harness ? `nh-gate pid ${d.harness.pid} on ${d.harness.host} is gone` : `no harness recorded (an older nh-gate) and nothing changed for ${Math.floor(d.idleMs / 3600_000)} h`;
  if (d.harness ? !d.dead : d.idleMs < LEGACY_AGE_MS) return { action: 'leave' };
  const entries = [...d.entries].sort();
  const kept = entries.filter((e) => !NOTHING.test(e));
  if (kept.length === 0) return { action: 'remove', why: `it holds nothing (${entries.length ? entries.join(', ') : 'empty'}): ${who}` };
  return { action: 'mark', why: `interrupted before its first leg (harness died): ${who}; kept ${kept.join(', ')}`, kept };
}

function readHarness(file: string): HarnessIdentity | null {
  try {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { harness?: HarnessIdentity };
    return doc.harness && typeof doc.harness.pid === 'number' && typeof doc.harness.host === 'string' ? doc.harness : null;
  } catch {
    return null;
  }
}

function facts(dir: string): UnfinishedDir {
  const entries = readdirSync(dir);
  const mtimes = [dir, ...entries.map((e) => join(dir, e))].map((p) => statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0);
  const harness = readHarness(join(dir, HARNESS_FILE));
  return { entries, harness, dead: harness !== null && isDead(harness), idleMs: Date.now() - Math.max(...mtimes) };
}

// A run directory without result.json: removed, or given a result.json that says it was interrupted.
function settleUnfinished(dir: string): string | null {
  const d = facts(dir);
  const j = judgeUnfinished(d);
  if (j.action === 'leave') return null;
  if (j.action === 'remove') {
    rmSync(dir, { recursive: true, force: true });
    return `removed ${dir}: ${j.why}`;
  }
  writeAtomic(join(dir, 'result.json'), JSON.stringify({
    schemaVersion: 1, runDir: dir, status: 'interrupted', finishedAt: null, legs: [], notes: [j.why], harness: d.harness,
    verdict: { word: 'VOID', exitClass: 'void', reasons: [reason('HARNESS_DIED', j.why)] },
  }, null, 2) + '\n');
  rmSync(join(dir, '.reserve'), { force: true });
  return `marked ${dir} ${j.why}`;
}

// A "running" result whose harness is dead on this host: rewritten as interrupted (harness died), legs kept.
function settleRunning(dir: string, file: string, text: string): string | null {
  const doc = JSON.parse(text) as Record<string, unknown>;
  const h = doc.harness as HarnessIdentity | undefined;
  if (doc.status !== 'running' || !h || typeof h.pid !== 'number' || !isDead(h)) return null;
  doc.status = 'interrupted';
  const legs = Array.isArray(doc.legs) ? doc.legs.length : 0;
  const why = `interrupted (harness died): nh-gate pid ${h.pid} on ${h.host} is gone; ${legs} finished leg(s) kept`;
  doc.notes = [...(Array.isArray(doc.notes) ? doc.notes : []), why];
  const v = doc.verdict as { word?: string; reasons?: unknown[] } | undefined;
  if (v) doc.verdict = { ...v, word: 'VOID', exitClass: 'void', reasons: [reason('HARNESS_DIED', why), ...(Array.isArray(v.reasons) ? v.reasons : [])] };
  writeAtomic(file, JSON.stringify(doc, null, 2) + '\n');
  rmSync(join(dir, '.reserve'), { force: true });
  return `marked ${dir} ${why}`;
}

// Settles every recent run whose harness died on this host: a "running" result.json is marked interrupted
// (its legs kept as they were); a directory without result.json is marked so too, or removed when it holds
// nothing; a half-made one (NEW_PREFIX) of a dead harness is removed. Returns one note per run so settled.
export function markDeadRuns(resultsBase: string, skipDir: string | null = null): string[] {
  const root = join(resultsBase, 'runs');
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  const notes: string[] = [];
  for (const name of names.filter((n) => n.startsWith(NEW_PREFIX))) {
    const h = readHarness(join(root, name, HARNESS_FILE));
    if (h && isDead(h)) rmSync(join(root, name), { recursive: true, force: true });
  }
  for (const name of names.filter((n) => !n.startsWith('.')).slice(-SCAN_RUNS)) {
    const dir = join(root, name);
    if (dir === skipDir) continue;
    const file = join(dir, 'result.json');
    let text: string | null;
    try {
      if (!statSync(dir).isDirectory()) continue;
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') continue;
      text = null;
    }
    try {
      const note = text === null ? settleUnfinished(dir) : text.includes('"running"') ? settleRunning(dir, file, text) : null;
      if (note) notes.push(note);
    } catch (err) {
      // A result.json that is not JSON was not written by nh-gate (its writes are atomic): not ours to judge.
      if (!(err instanceof SyntaxError)) notes.push(`could not mark ${dir} as interrupted (harness died): it is not writable`);
    }
  }
  return notes;
}

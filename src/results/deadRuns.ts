import { reason } from '../verdict/reasons.js';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pidAlive } from '../exec/lock.js';
import { startTicks } from '../exec/procfs.js';
import { writeAtomic } from '../io/atomic.js';

// How far back a new run looks for runs whose harness died ("running" for ever otherwise).
const SCAN_RUNS = 200;

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

// Marks every recent "running" result whose harness is dead on this host as interrupted (harness died),
// rewriting it atomically (its legs are kept as they were). Returns one note per run so marked.
export function markDeadRuns(resultsBase: string, skipDir: string | null = null): string[] {
  const root = join(resultsBase, 'runs');
  let names: string[];
  try {
    names = readdirSync(root).sort().slice(-SCAN_RUNS);
  } catch {
    return [];
  }
  const notes: string[] = [];
  const host = hostname();
  for (const name of names) {
    const dir = join(root, name);
    if (dir === skipDir) continue;
    const file = join(dir, 'result.json');
    let doc: Record<string, unknown>;
    try {
      const text = readFileSync(file, 'utf8');
      if (!text.includes('"running"')) continue;
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      continue;
    }
    const h = doc.harness as HarnessIdentity | undefined;
    if (doc.status !== 'running' || !h || typeof h.pid !== 'number') continue;
    if (!harnessDead(h, host, pidAlive(h.pid), startTicks(h.pid))) continue;
    doc.status = 'interrupted';
    const legs = Array.isArray(doc.legs) ? doc.legs.length : 0;
    const why = `interrupted (harness died): nh-gate pid ${h.pid} on ${h.host} is gone; ${legs} finished leg(s) kept`;
    doc.notes = [...(Array.isArray(doc.notes) ? doc.notes : []), why];
    const v = doc.verdict as { word?: string; reasons?: unknown[] } | undefined;
    if (v) doc.verdict = { ...v, word: 'VOID', exitClass: 'void', reasons: [reason('HARNESS_DIED', why), ...(Array.isArray(v.reasons) ? v.reasons : [])] };
    try {
      writeAtomic(file, JSON.stringify(doc, null, 2) + '\n');
      notes.push(`marked ${dir} ${why}`);
    } catch {
      notes.push(`could not mark ${dir} as interrupted (harness died): its result.json is not writable`);
    }
  }
  return notes;
}

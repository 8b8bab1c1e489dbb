import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { sep } from 'node:path';
import { NhGateError } from '../errors.js';
import { pidAlive } from '../exec/lock.js';
import { fileSha, writeAtomic, writeFresh } from './files.js';

// One mutation in flight: enough to put the file back after a crash, and to refuse when it can't be.
export interface JournalEntry {
  tree: number;
  mutantId: string;
  path: string;
  originalSha: string;
  mutantSha: string;
  original: string;
}

interface JournalDoc {
  version: 1;
  pid: number;
  startedAt: string;
  entries: JournalEntry[];
}

// What recovery did with a leftover journal.
export interface Recovery {
  leftoverPid: number;
  restored: string[];
  alreadyOriginal: string[];
}

// The crash journal: written BEFORE each mutation touches a scratch file, cleared after its restore,
// so a SIGKILL at any point leaves a record of exactly which file holds which mutant.
export class Journal {
  private doc: JournalDoc;
  constructor(readonly path: string) {
    this.doc = { version: 1, pid: process.pid, startedAt: new Date().toISOString(), entries: [] };
  }

  // Records the entry and syncs it to disk before the caller writes the mutant.
  begin(entry: JournalEntry): void {
    this.doc.entries = [...this.doc.entries.filter((e) => e.tree !== entry.tree), entry];
    writeAtomic(this.path, JSON.stringify(this.doc, null, 2) + '\n');
  }

  // Clears the tree's entry once its file is restored.
  end(tree: number): void {
    this.doc.entries = this.doc.entries.filter((e) => e.tree !== tree);
    if (this.doc.entries.length === 0) rmSync(this.path, { force: true });
    else writeAtomic(this.path, JSON.stringify(this.doc, null, 2) + '\n');
  }

  // Entries still open (a signal handler restores these).
  open(): JournalEntry[] {
    return [...this.doc.entries];
  }
}

// Runs at start: a leftover journal restores only files that still hold the recorded mutant (or are
// already back to the original); anything else is refused with instructions, never overwritten.
export async function recoverJournal(path: string, workspace: string, waitS = 60): Promise<Recovery | null> {
  if (!existsSync(path)) return null;
  let doc: JournalDoc;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as JournalDoc;
    if (!Array.isArray(doc.entries)) throw new Error('no entries');
  } catch (err) {
    throw new NhGateError('LOCKED', `${path}: a leftover mutation journal cannot be read (${(err as Error).message})`, `the scratch trees under ${workspace} may hold a mutant: delete ${workspace} to start from fresh copies (your own tree was never written)`);
  }
  if (doc.pid !== process.pid && pidAlive(doc.pid)) {
    throw new NhGateError('LOCKED', `${path}: nh-gate mutate pid ${doc.pid} is still running on these scratch trees`, 'wait for it to finish, or stop it (Ctrl-C restores its files)');
  }
  const busy = await waitForProcessesIn(workspace, waitS);
  if (busy.length > 0) {
    throw new NhGateError('LOCKED', `${path}: process(es) ${busy.join(', ')} left by the interrupted run (pid ${doc.pid}) still run inside ${workspace} after ${waitS} s`, `wait for them to finish or end them (kill ${busy.join(' ')}), then run again`);
  }
  const rec: Recovery = { leftoverPid: doc.pid, restored: [], alreadyOriginal: [] };
  const conflicts: string[] = [];
  for (const e of doc.entries) {
    const cur = fileSha(e.path);
    if (cur === e.originalSha) rec.alreadyOriginal.push(e.path);
    else if (cur === e.mutantSha) {
      writeFresh(e.path, e.original);
      if (fileSha(e.path) !== e.originalSha) conflicts.push(`${e.path} (restore did not reproduce sha ${e.originalSha.slice(0, 16)})`);
      else rec.restored.push(e.path);
    } else conflicts.push(`${e.path} (sha ${cur === null ? 'missing' : cur.slice(0, 16)}; journal: mutant ${e.mutantSha.slice(0, 16)}, original ${e.originalSha.slice(0, 16)})`);
  }
  if (conflicts.length > 0) {
    throw new NhGateError('LOCKED', `${path}: mutant ${doc.entries.map((e) => e.mutantId).join(', ')} of pid ${doc.pid} was interrupted and these scratch files match neither the recorded mutant nor the original: ${conflicts.join('; ')}`, `nothing was overwritten; inspect them, then delete ${workspace} to start from fresh copies (your own tree was never written)`);
  }
  rmSync(path, { force: true });
  return rec;
}

// Pids whose working directory is inside dir (Linux /proc; empty elsewhere). A SIGKILLed run leaves its
// build or suite running in a scratch tree; a new build in the same dir must not race it.
export function processesIn(dir: string): number[] {
  const out: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const p of pids) {
    try {
      const cwd = readlinkSync(`/proc/${p}/cwd`);
      if ((cwd === dir || cwd.startsWith(dir + sep)) && Number(p) !== process.pid) out.push(Number(p));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

async function waitForProcessesIn(workspace: string, waitS: number): Promise<number[]> {
  let dir = workspace;
  try { dir = realpathSync(workspace); } catch { /* not there: nothing runs in it */ }
  const deadline = Date.now() + waitS * 1000;
  for (;;) {
    const busy = processesIn(dir);
    if (busy.length === 0 || Date.now() >= deadline) return busy;
    await new Promise((r) => setTimeout(r, 200));
  }
}

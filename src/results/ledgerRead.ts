import { readFileSync } from 'node:fs';
import type { LedgerEntry } from './ledger.js';
import { NhGateError } from '../errors.js';
import { isSeriesKey } from './seriesKey.js';

// Reading the append-only ledger back (history, A/A calibration look-ups). The ledger is written by
// nh-gate, one JSON object a line; a line cut short by a crash, or written by a newer nh-gate, is
// skipped, counted and named by its line number — never guessed at, never fatal for the other lines.
// Checked by hand rather than with zod: 100,000 lines must read in well under 2 s, and only the fields
// the readers use are checked.

export const LEDGER_SCHEMA_VERSION = 1;

export interface SkippedLine {
  line: number; // 1-based
  reason: 'truncated' | 'newer-schema' | 'not-an-entry';
  detail: string;
}

export interface LedgerRead {
  path: string;
  entries: Array<LedgerEntry & { line: number }>;
  skipped: SkippedLine[];
  exists: boolean;
}

function isEntry(e: unknown): e is LedgerEntry {
  if (!e || typeof e !== 'object') return false;
  const o = e as Record<string, unknown>;
  return typeof o.at === 'string' && typeof o.command === 'string' && typeof o.verdict === 'string' && !!o.figures && typeof o.figures === 'object'
    && (o.siliconKey === null || typeof o.siliconKey === 'string') && (o.gate === null || typeof o.gate === 'string')
    && (o.series === undefined || isSeriesKey(o.series));
}

// Parses ledger text: entries of this schema in file order, and every other non-empty line named.
export function parseLedger(text: string, path = 'ledger.jsonl'): LedgerRead {
  const entries: LedgerRead['entries'] = [];
  const skipped: SkippedLine[] = [];
  let start = 0;
  let line = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    line += 1;
    const raw = text.slice(start, end);
    start = end + 1;
    if (raw.trim() === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch {
      skipped.push({ line, reason: 'truncated', detail: `line ${line} is not a whole JSON object (${raw.length} bytes, ends ${JSON.stringify(raw.slice(-20))})` });
      continue;
    }
    const v = obj && typeof obj === 'object' ? (obj as { schemaVersion?: unknown }).schemaVersion : undefined;
    if (typeof v === 'number' && v > LEDGER_SCHEMA_VERSION) {
      skipped.push({ line, reason: 'newer-schema', detail: `line ${line} has schemaVersion ${v}; this nh-gate reads ${LEDGER_SCHEMA_VERSION} (upgrade nh-gate to read it)` });
      continue;
    }
    if (v !== LEDGER_SCHEMA_VERSION || !isEntry(obj)) {
      skipped.push({ line, reason: 'not-an-entry', detail: `line ${line} is JSON but not a ledger entry of schemaVersion ${LEDGER_SCHEMA_VERSION}` });
      continue;
    }
    // Mutated in place rather than spread: a copy per line costs a third of the read at 100,000 lines.
    (obj as LedgerEntry & { line: number }).line = line;
    entries.push(obj as LedgerEntry & { line: number });
  }
  return { path, entries, skipped, exists: true };
}

// Reads the ledger file; a missing ledger is an empty one (exists: false says so).
export function readLedger(path: string): LedgerRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, entries: [], skipped: [], exists: false };
    throw new NhGateError('UNREADABLE_FILE', `${path}: the ledger cannot be read (${(err as Error).message})`, 'check the path and its permissions, or pass --results-dir');
  }
  return { ...parseLedger(text, path), path };
}

// One sentence for the skipped lines, for stderr and the history report.
export function describeSkipped(r: LedgerRead): string | null {
  if (r.skipped.length === 0) return null;
  const by = (k: SkippedLine['reason']): number => r.skipped.filter((s) => s.reason === k).length;
  const first = r.skipped.slice(0, 3).map((s) => s.detail).join('; ');
  return `${r.path}: skipped ${r.skipped.length} line(s) (${by('truncated')} truncated, ${by('newer-schema')} from a newer schema, ${by('not-an-entry')} not entries): ${first}${r.skipped.length > 3 ? '; …' : ''}`;
}

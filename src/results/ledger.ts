import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { siliconKey } from '../silicon/types.js';
import { appendLine } from './write.js';
import { parseJsonl } from '../io/jsonl.js';
import * as z from 'zod';

// What a ledger line must hold to be read back (zod at the boundary; extra keys from newer writers are kept).
const LedgerLineSchema = z.looseObject({ schemaVersion: z.literal(1), siliconKey: z.string().nullable() });
import type { RunResult } from './types.js';
import { sequentialKey } from './comparison.js';
import { seriesKeyOf, type SeriesKey } from './seriesKey.js';
import { runWitness } from '../verdict/witness.js';

// One ledger line: a run's measured figures keyed by the silicon they were taken on, so a later run
// finds its baseline by silicon key rather than by a constant someone typed.
export interface LedgerEntry {
  schemaVersion: 1;
  at: string;
  command: string;
  gate: string | null;
  gateSha256: string | null;
  recipe: string | null;
  arch: string;
  siliconKey: string | null;
  binarySha256: string[];
  verdict: string;
  // Who saw the ids of the run's token verdicts (harness or only the engine); absent when none was judged.
  witness?: 'harness' | 'engine';
  // lo/hi: the figure's interval where the run computed one (history weights each point by it).
  figures: Record<string, { value: number; unit: string; lo?: number; hi?: number }>;
  runDir: string;
  // Set when the run's legs ran on several kinds of silicon (Slurm nodes): the legs this line holds.
  legs?: number[];
  // What makes this run's figures comparable with another's (seriesKey.ts); absent on lines written before it.
  series?: SeriesKey;
}

// The ledger path under the results base (.nh-gate/ledger.jsonl by default).
export function ledgerPath(base: string): string {
  return join(base, 'ledger.jsonl');
}

// The intervals a run computed for its run-level figures: each A/B criterion's interval under its figure's
// key (the bootstrap's for a fixed A/B, the anytime-valid one under sequential<Key> for a sequential one).
function figureIntervals(r: RunResult): Record<string, { lo: number; hi: number }> {
  const out: Record<string, { lo: number; hi: number }> = {};
  const c = r.comparison;
  if (c?.kind !== 'ab') return out;
  const sequential = c.method.kind === 'anytime-valid';
  for (const m of c.metrics) {
    if (!m.interval) continue;
    out[sequential ? sequentialKey(m.key) : m.key] = { lo: m.interval.lo, hi: m.interval.hi };
  }
  return out;
}

// The ledger line for a finished run: only measured figures, never a refused one as a number.
export function ledgerEntry(r: RunResult): LedgerEntry {
  const figures: LedgerEntry['figures'] = {};
  const add = (prefix: string, qs: RunResult['quantities']): void => {
    for (const [k, q] of Object.entries(qs)) if (q.status === 'measured') figures[`${prefix}${k}`] = { value: q.value, unit: q.unit };
  };
  add('', r.quantities);
  for (const [k, iv] of Object.entries(figureIntervals(r))) if (figures[k] && Number.isFinite(iv.lo) && Number.isFinite(iv.hi)) Object.assign(figures[k], iv);
  for (const leg of r.legs) add(`leg${leg.index + 1}.`, leg.quantities);
  const witness = runWitness(r.legs);
  return {
    schemaVersion: 1,
    at: r.finishedAt ?? new Date().toISOString(),
    command: r.command,
    gate: r.gate?.name ?? null,
    gateSha256: r.gate?.sha256 ?? null,
    recipe: r.recipe?.name ?? null,
    arch: r.arch,
    siliconKey: r.silicon ? siliconKey(r.silicon) : null,
    binarySha256: [...new Set(r.legs.map((l) => l.binarySha256).filter((s): s is string => s !== null))],
    verdict: r.verdict.word,
    ...(witness ? { witness } : {}),
    figures,
    runDir: r.runDir,
    series: seriesKeyOf(r),
  };
}

// The ledger lines of a run, one per silicon its legs ran on (a leg records its node's silicon under
// --executor slurm): legs on other silicon never share a line, and run-level figures (ratios) go only
// on a run whose legs share one silicon.
export function ledgerEntries(r: RunResult): LedgerEntry[] {
  const groups = new Map<string, RunResult['legs']>();
  for (const leg of r.legs) {
    const s = leg.silicon ?? r.silicon;
    const k = s ? siliconKey(s) : 'unknown';
    groups.set(k, [...(groups.get(k) ?? []), leg]);
  }
  if (groups.size <= 1) {
    const only = r.legs[0]?.silicon ?? r.silicon;
    return [{ ...ledgerEntry(r), siliconKey: only ? siliconKey(only) : null }];
  }
  return [...groups.entries()].map(([k, legs]) => {
    const e = ledgerEntry({ ...r, quantities: {}, legs });
    return { ...e, siliconKey: k === 'unknown' ? null : k, legs: legs.map((l) => l.index + 1), series: seriesKeyOf(r) };
  });
}

// Appends a run to the ledger (append-only: never rewritten), one line per silicon.
export function appendLedger(base: string, r: RunResult): LedgerEntry {
  const es = ledgerEntries(r);
  for (const e of es) appendLine(ledgerPath(base), e);
  return es[0]!;
}

// Earlier entries taken on the same silicon, newest last; unreadable lines are skipped and counted
// (the one ledger reader, ledgerRead.ts, names them).
export function ledgerOnSilicon(base: string, key: string): { entries: LedgerEntry[]; skipped: number } {
  let text = '';
  try {
    text = readFileSync(ledgerPath(base), 'utf8');
  } catch {
    return { entries: [], skipped: 0 };
  }
  const { records, garbage } = parseJsonl(text, LedgerLineSchema);
  return { entries: records.filter((e) => e.siliconKey === key) as unknown as LedgerEntry[], skipped: garbage.length };
}

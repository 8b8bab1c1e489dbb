import { compileProfile, memoMatcher, parseKv, type CompiledPattern } from './compile.js';
import type { CaptureValue, CounterGroup, CounterRecord, DoctestSummary, DriverReader, DriverReport, FeatureCell, KvFields, Profile, PromptRow, RowTotals, TokenMatchBlock, UnboundIdsLine, VerdictKind } from './types.js';

// Caps keep memory flat on a 100 MB log; everything past a cap is still counted and summed.
export const MAX_PROMPT_ROWS = 10_000;
export const MAX_COUNTER_RECORDS = 10_000;
export const MAX_COUNTER_GROUPS = 256;
export const MAX_REFERENCE_TIER_LINES = 100;
export const MAX_UNBOUND_IDS = 100;
const RECENT_COUNTER_TEXTS = 8;

// A string's own copy (not a slice of a larger one), so holding it holds only its characters.
function flat(s: string): string {
  return (' ' + s).slice(1);
}

// A numeric capture (int or float), or null when the group was absent.
function int(v: CaptureValue): number | null {
  return typeof v === 'number' ? v : null;
}
function str(v: CaptureValue): string | null {
  return typeof v === 'string' ? v : null;
}
function emptyTotals(): RowTotals {
  return { rows: 0, compared: 0, matched: 0, shortRows: 0, lastRowS: null };
}

// "121a, 90" / "121a;90" / "121a 90" → ["121a", "90"].
export function splitArchs(text: string | null): string[] {
  if (!text) return [];
  return text.split(/[\s,;]+/).filter((s) => s.length > 0);
}

const UNIT_S: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6 };

// "12 7 301" (spaces or commas) → [12, 7, 301]; anything that is not a list of non-negative integers → null.
export function parseIdList(text: string): number[] | null {
  const parts = text.trim().split(/[\s,]+/).filter((x) => x.length > 0);
  if (!parts.every((x) => /^\d+$/.test(x))) return null;
  return parts.map((x) => Number.parseInt(x, 10));
}

// A got:/exp: line's text and line number, held until its row arrives.
type PendingIds = { got?: { text: string; line: number }; exp?: { text: string; line: number } };

// The open block's row for a prompt (the latest, should a block repeat one).
function findOpenRow(rows: readonly PromptRow[], prompt: number): PromptRow | null {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.prompt === prompt) return rows[i]!;
  return null;
}

// Lines still waiting when their block closes (or the log ends) bound to no row: recorded, never dropped.
function unbind(out: UnboundIdsLine[], pending: ReadonlyMap<number, PendingIds>, next: PendingIds | null): void {
  const add = (w: PendingIds, prompt: number | null): void => {
    for (const role of ['got', 'exp'] as const) {
      const l = w[role];
      if (l && out.length < MAX_UNBOUND_IDS) out.push({ line: l.line, role, prompt });
    }
  };
  for (const [prompt, w] of pending) add(w, prompt);
  if (next) add(next, null);
}

function canonicalFields(f: KvFields): string {
  return JSON.stringify(Object.keys(f).sort().map((k) => [k, f[k]]));
}

// The incremental reader: feed it lines as they arrive; report() is a snapshot that can be taken at any time.
export function createDriverReader(profile: Profile): DriverReader {
  const compiled = compileProfile(profile);
  const match = memoMatcher(compiled);
  const r: DriverReport = {
    profile: profile.name,
    lines: 0,
    firstLineS: null,
    lastLineS: null,
    banner: null,
    load: null,
    loadLines: 0,
    prompts: [],
    promptsDropped: 0,
    openRows: emptyTotals(),
    tokenMatch: [],
    verdicts: [],
    referenceTier: { count: 0, lines: [] },
    counters: { total: 0, records: [], recordsDropped: 0, groups: [], groupsOverflow: 0 },
    features: { targetArchs: null, cells: [] },
    doctest: [],
    ids: [],
    engineTimer: [],
    declaresIds: profile.patterns.some((p) => p.role === 'ids'),
    unboundIds: [],
  };
  const groupIndex = new Map<string, CounterGroup>();
  // Counter text seen before → its group. The last few texts are compared with === first: a Map lookup
  // hashes a fresh string through a runtime call, which cost more than the regex on a 100 MB log.
  const rawGroups = new Map<string, CounterGroup | null>();
  // A repeated line's captures are one object (compile.ts memoMatcher): its group is found by that object
  // before any text is compared.
  const byCaps = new WeakMap<object, CounterGroup | null>();
  const recent: { label: string; text: string; g: CounterGroup | null }[] = [];
  let recentNext = 0;
  function recentGroup(label: string, text: string): CounterGroup | null | undefined {
    for (const e of recent) if (e.text === text && e.label === label) return e.g;
    const g = rawGroups.get(`${label}|${text}`);
    if (g !== undefined) remember(label, text, g);
    return g;
  }
  function remember(label: string, text: string, g: CounterGroup | null): void {
    // Flattened copies: a regex capture is a slice that would keep its whole read chunk alive.
    const e = { label: flat(label), text: flat(text), g };
    if (recent.length < RECENT_COUNTER_TEXTS) recent.push(e);
    else recent[(recentNext = (recentNext + 1) % RECENT_COUNTER_TEXTS)] = e;
  }
  function rememberGroup(label: string, text: string, g: CounterGroup | null): void {
    if (rawGroups.size < MAX_COUNTER_GROUPS * 4) rawGroups.set(flat(`${label}|${text}`), g);
    remember(label, text, g);
  }
  let openRowList: PromptRow[] = [];
  let lastRow: PromptRow | null = null;
  // got:/exp: lines waiting for their row in the open block: by the prompt index they carry, or (no index,
  // before any row of the block) for the next row. Rare lines (printed on a mismatch): off the hot path.
  const pendingIds = new Map<number, PendingIds>();
  let pendingNext: PendingIds | null = null;
  let pendingDoctest: DoctestSummary | null = null;
  let threwBeforeSummary = 0;
  let lineNo = 0;
  let tS: number | null = null;

  function doctestOpen(): DoctestSummary {
    if (!pendingDoctest) {
      pendingDoctest = { cases: null, assertions: null, status: null, threw: threwBeforeSummary, line: lineNo };
      threwBeforeSummary = 0;
      r.doctest.push(pendingDoctest);
    }
    return pendingDoctest;
  }

  // Each record that keeps its place spells it out (line: lineNo, tS): no object per matched line.
  function visit(role: string, c: Readonly<Record<string, CaptureValue>>, p: CompiledPattern): void {
    switch (role) {
      case 'banner':
        if (r.banner === null) r.banner = str(c.text);
        return;
      case 'load':
        r.loadLines += 1;
        if (r.load === null) r.load = { line: lineNo, tS, loadS: int(c.loadS) ?? Number.NaN };
        return;
      case 'prompt': {
        const row: PromptRow = {
          line: lineNo,
          tS,
          block: -1,
          prompt: int(c.prompt) ?? -1,
          promptTokens: int(c.promptTokens),
          generated: int(c.generated),
          goldenWidth: int(c.goldenWidth),
          compared: int(c.compared),
          matched: int(c.matched),
          wallS: int(c.wallS),
          short: c.short !== undefined,
          got: null,
          exp: null,
        };
        const t = r.openRows;
        t.rows += 1;
        t.compared += row.compared ?? 0;
        t.matched += row.matched ?? 0;
        if (row.short) t.shortRows += 1;
        t.lastRowS = tS;
        if (r.prompts.length < MAX_PROMPT_ROWS) {
          r.prompts.push(row);
          openRowList.push(row);
        } else r.promptsDropped += 1;
        lastRow = row;
        const waiting = pendingIds.get(row.prompt) ?? pendingNext;
        if (waiting) {
          if (waiting.got) row.got = waiting.got.text;
          if (waiting.exp) row.exp = waiting.exp.text;
          if (waiting === pendingNext) pendingNext = null;
          else pendingIds.delete(row.prompt);
        }
        return;
      }
      case 'got':
      case 'exp': {
        // Bound by the prompt index the line carries, whatever the order; without one, by the grammar: after
        // its row (the last row of the block), or before the block's first row (the next row).
        const prompt = int(c.prompt);
        const text = str(c.tokens) ?? '';
        const row = prompt === null ? lastRow : findOpenRow(openRowList, prompt);
        if (row) row[role] = text;
        else if (prompt === null) (pendingNext ??= {})[role] = { text, line: lineNo };
        else {
          const w = pendingIds.get(prompt) ?? {};
          w[role] = { text, line: lineNo };
          pendingIds.set(prompt, w);
        }
        return;
      }
      case 'tokenMatch': {
        const prev = r.tokenMatch[r.tokenMatch.length - 1];
        const block: TokenMatchBlock = {
          line: lineNo, tS,
          index: r.tokenMatch.length,
          mode: str(c.mode),
          matched: int(c.matched) ?? 0,
          compared: int(c.compared) ?? 0,
          prompts: int(c.prompts) ?? 0,
          fullRows: int(c.fullRows),
          shortRows: int(c.shortRows),
          startS: prev ? prev.tS : r.load ? r.load.tS : null,
          rowTotals: r.openRows,
        };
        for (const row of openRowList) row.block = block.index;
        unbind(r.unboundIds, pendingIds, pendingNext);
        pendingIds.clear();
        pendingNext = null;
        openRowList = [];
        r.openRows = emptyTotals();
        lastRow = null;
        r.tokenMatch.push(block);
        return;
      }
      case 'verdict':
        r.verdicts.push({ line: lineNo, tS, kind: str(c.kind) as VerdictKind, detail: (str(c.detail) ?? str(c.rest) ?? '').trim() });
        return;
      case 'referenceTier':
        r.referenceTier.count += 1;
        if (r.referenceTier.lines.length < MAX_REFERENCE_TIER_LINES) r.referenceTier.lines.push({ line: lineNo, tS, op: str(c.op), device: str(c.device) });
        return;
      case 'counters': {
        // Hot path on a long log: identical counter text hits the raw-text cache without being re-parsed.
        const label = str(c.label) ?? 'counters';
        const rawFields = str(c.fieldsText) ?? '';
        r.counters.total += 1;
        const known = byCaps.get(c);
        let g = known !== undefined ? known : recentGroup(label, rawFields);
        let fields: KvFields | null = null;
        if (g === undefined) {
          fields = parseKv(rawFields);
          const key = `${label}|${canonicalFields(fields)}`;
          g = groupIndex.get(key) ?? null;
          if (g === null && groupIndex.size < MAX_COUNTER_GROUPS) {
            g = { label, fields, count: 0, firstLine: lineNo };
            groupIndex.set(key, g);
            r.counters.groups.push(g);
          }
          rememberGroup(label, rawFields, g);
        }
        if (known === undefined) byCaps.set(c, g);
        if (g) g.count += 1;
        else r.counters.groupsOverflow += 1;
        if (r.counters.records.length < MAX_COUNTER_RECORDS) {
          const rec: CounterRecord = { line: lineNo, tS, label, fields: fields ?? g?.fields ?? parseKv(rawFields) };
          r.counters.records.push(rec);
        } else r.counters.recordsDropped += 1;
        return;
      }
      case 'featureArchs':
        r.features.targetArchs = splitArchs(str(c.archs));
        return;
      case 'feature': {
        const state = str(c.state) === 'ENABLED' ? 'ENABLED' : 'DISABLED';
        const reason = str(c.reason);
        const archText = str(c.archs) ?? (reason ? (/\[([^\]]*)\]/.exec(reason)?.[1] ?? null) : null);
        const cell: FeatureCell = { family: str(c.family) ?? '', cell: str(c.cell) ?? '', state, archs: splitArchs(archText), reason, line: lineNo };
        r.features.cells.push(cell);
        return;
      }
      case 'doctestCases': {
        if (pendingDoctest && pendingDoctest.cases) pendingDoctest = null; // a new summary without a Status line
        const s = doctestOpen();
        s.cases = { total: int(c.total) ?? 0, passed: int(c.passed) ?? 0, failed: int(c.failed) ?? 0, skipped: int(c.skipped) ?? 0 };
        return;
      }
      case 'doctestAssertions': {
        const s = doctestOpen();
        s.assertions = { total: int(c.total) ?? 0, passed: int(c.passed) ?? 0, failed: int(c.failed) ?? 0 };
        return;
      }
      case 'doctestStatus': {
        const s = doctestOpen();
        s.status = str(c.status);
        pendingDoctest = null;
        return;
      }
      case 'ids': {
        const raw = str(c.tokens) ?? '';
        r.ids.push({ line: lineNo, tS, prompt: int(c.prompt) ?? -1, tokens: parseIdList(raw), raw });
        return;
      }
      case 'engineTimer': {
        const tokens = int(c.tokens) ?? Number.NaN;
        const seconds = UNIT_S[(str(c.unit) ?? p.unit ?? '').replace('µ', 'u')] ?? Number.NaN;
        r.engineTimer.push({ line: lineNo, tS, prompt: int(c.prompt), decodeS: (int(c.time) ?? Number.NaN) * seconds, tokens, steps: p.countsFirstToken ? tokens - 1 : tokens });
        return;
      }
      case 'doctestThrew':
        if (pendingDoctest) pendingDoctest.threw += 1;
        else threwBeforeSummary += 1;
        return;
    }
  }

  let finished = false;
  return {
    push(line: string, arrivalS?: number): void {
      if (finished) throw new Error('driver reader: a line pushed after finish()');
      lineNo += 1;
      r.lines = lineNo;
      tS = arrivalS ?? null;
      if (tS !== null) {
        if (r.firstLineS === null) r.firstLineS = tS;
        r.lastLineS = tS;
      }
      for (const [p, caps] of match(line.endsWith('\r') ? line.slice(0, -1) : line)) visit(p.role, caps, p);
    },
    report(): DriverReport {
      const snapshot = structuredClone(r);
      unbind(snapshot.unboundIds, pendingIds, pendingNext);
      return snapshot;
    },
    finish(): DriverReport {
      // The report itself, not a copy (a copy of 10,000 rows and records cost a 100 MB analyze 50 ms): nothing
      // is pushed after it, so nothing can change it under the caller.
      finished = true;
      unbind(r.unboundIds, pendingIds, pendingNext);
      pendingIds.clear();
      pendingNext = null;
      return r;
    },
  };
}

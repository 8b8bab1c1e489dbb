// Engine output profiles are DATA: named line patterns with typed captures. A recipe names a built-in
// profile or a JSON file of this shape, so a new engine needs no code as long as its lines carry the roles below.

// What a line means to the reader; the reader knows the roles, the profile knows the engine's wording.
export const ROLES = [
  'banner',
  'load',
  'prompt',
  'got',
  'exp',
  'tokenMatch',
  'verdict',
  'referenceTier',
  'counters',
  'featureArchs',
  'feature',
  'doctestCases',
  'doctestAssertions',
  'doctestStatus',
  'doctestThrew',
  // A prompt's generated token ids, printed by the engine or its driver: the harness judges them itself.
  'ids',
  // The engine's own decode timer (e.g. llama.cpp's "eval time = … ms / N tokens"): a second, labelled per-token figure.
  'engineTimer',
] as const;
export type Role = (typeof ROLES)[number];

// int/float parse a number (a garbled float reads NaN and is refused downstream, never dropped);
// kv parses "k=v k2=v2" into fields matched by name, never by position.
export type CaptureType = 'int' | 'float' | 'string' | 'kv';

export interface LinePattern {
  role: Role;
  // JS regex source with named groups; `{prefix}` is replaced by the profile's escaped prefix.
  regex: string;
  flags?: string;
  // A literal (or any of several) the line must contain before the regex is tried (keeps a 100 MB log fast).
  hint?: string | string[];
  captures: Record<string, CaptureType>;
  // false: the line is also offered to the later patterns (reference-tier text can sit inside any line).
  exclusive?: boolean;
  // engineTimer only: the unit of the captured `time` (unless a `unit` capture says it per line), and whether
  // the captured token count includes the first token, which costs no decode step (llama.cpp: it does).
  unit?: TimeUnit;
  countsFirstToken?: boolean;
}

export const TIME_UNITS = ['s', 'ms', 'us'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export interface Profile {
  name: string;
  description?: string;
  prefix: string;
  patterns: LinePattern[];
}

export type KvFields = Record<string, number | string>;
export type CaptureValue = number | string | KvFields | undefined;

// --- the typed report the reader builds ---

export interface TimedRef {
  line: number; // 1-based line number in the log
  tS: number | null; // harness monotonic arrival time, seconds; null when the log carries none
}

export interface LoadLine extends TimedRef {
  loadS: number; // the engine's stated load seconds (may be NaN when garbled: refused downstream)
}

export interface PromptRow extends TimedRef {
  block: number; // index of the TOKEN MATCH block this row belongs to; -1 while no block has closed it
  prompt: number;
  promptTokens: number | null;
  generated: number | null;
  goldenWidth: number | null;
  compared: number | null;
  matched: number | null;
  wallS: number | null;
  short: boolean;
  got: string | null;
  exp: string | null;
}

// Sums of the rows that preceded a block, kept whatever the row cap, so the engine's line can be checked.
export interface RowTotals {
  rows: number;
  compared: number;
  matched: number;
  shortRows: number;
  lastRowS: number | null;
}

export interface TokenMatchBlock extends TimedRef {
  index: number;
  mode: string | null; // null: an older build that omits ", mode=…"
  matched: number;
  compared: number;
  prompts: number;
  // null: the line omitted its "(full rows=…, short rows=…)" part (a terse build); not 0.
  fullRows: number | null;
  shortRows: number | null;
  startS: number | null; // arrival of the load line (first block) or of the previous block's line
  rowTotals: RowTotals;
}

export type VerdictKind = 'STRICT PASS' | 'NEAR-TIE PASS' | 'DIVERGENCE' | 'REFUSING' | 'SHORT';

export interface VerdictLine extends TimedRef {
  kind: VerdictKind;
  detail: string;
}

export interface ReferenceTierLine extends TimedRef {
  op: string | null;
  device: string | null;
}

export interface CounterRecord extends TimedRef {
  label: string;
  fields: KvFields;
}

// Identical counter lines grouped (e.g. 93 decode steps that launched the same kernels).
export interface CounterGroup {
  label: string;
  fields: KvFields;
  count: number;
  firstLine: number;
}

export interface FeatureCell {
  family: string; // "CUDA", "nh-ref"
  cell: string;
  state: 'ENABLED' | 'DISABLED';
  archs: string[]; // ENABLED for [121a] → ["121a"]; for DISABLED the archs named in the reason
  reason: string | null;
  line: number;
}

export interface FeatureTable {
  targetArchs: string[] | null;
  cells: FeatureCell[];
}

export interface DoctestSummary {
  cases: { total: number; passed: number; failed: number; skipped: number } | null;
  assertions: { total: number; passed: number; failed: number } | null;
  status: 'SUCCESS' | 'FAILURE' | string | null;
  threw: number; // cases that threw: they run no assertions
  line: number;
}

// One prompt's ids as a line carried them; tokens is null when the text was not a list of integers.
export interface IdsLine extends TimedRef {
  prompt: number;
  tokens: number[] | null;
  raw: string;
}

// The engine's own timer: decode seconds over decode steps (tokens after the first, when the count includes it).
export interface EngineTimerLine extends TimedRef {
  prompt: number | null;
  decodeS: number;
  tokens: number;
  steps: number;
}

export interface DriverReport {
  profile: string;
  lines: number;
  firstLineS: number | null;
  lastLineS: number | null;
  banner: string | null;
  load: LoadLine | null;
  loadLines: number; // more than one load line is a log of several runs
  prompts: PromptRow[];
  promptsDropped: number; // rows past the cap are summed into their block but not kept
  openRows: RowTotals; // rows after the last TOKEN MATCH line (a truncated log)
  tokenMatch: TokenMatchBlock[];
  verdicts: VerdictLine[];
  referenceTier: { count: number; lines: ReferenceTierLine[] };
  counters: { total: number; records: CounterRecord[]; recordsDropped: number; groups: CounterGroup[]; groupsOverflow: number };
  features: FeatureTable;
  doctest: DoctestSummary[];
  ids: IdsLine[];
  engineTimer: EngineTimerLine[];
  // The profile has an `ids` role: ids lines are declared, so a run without them was not seen by the harness.
  declaresIds: boolean;
  // got:/exp: lines that bound to no prompt row (their prompt's row never came in their block).
  unboundIds: UnboundIdsLine[];
}

// A got:/exp: line left without its row; prompt is null when the line carried no prompt index.
export interface UnboundIdsLine {
  line: number;
  role: 'got' | 'exp';
  prompt: number | null;
}

// The incremental reader: push lines as they arrive (tS = harness monotonic seconds), ask for the report any time.
export interface DriverReader {
  push(line: string, tS?: number): void;
  // A snapshot, taken at any time.
  report(): DriverReport;
  // The final report (no copy); the reader takes no line after it.
  finish(): DriverReport;
}

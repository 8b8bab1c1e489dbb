import type { Mutation } from '../../config/mutations.js';
import { globRegExp, type InDiffConfig } from '../../config/in-diff.js';
import { sha256 } from '../files.js';
import { suiteCall, type SuiteCallable } from '../suite/invoke.js';
import { countOccurrences } from '../plan.js';
import type { SourceSpan } from '../types.js';
import type { ChangedFile } from './hunks.js';
import { maskSource } from './mask.js';
import { isDeletableStatement, lineEdits, OPERATORS, type LineEdit, type OperatorName } from './operators.js';
import { functionScopes } from './scope.js';

// Where a generated row came from: the operator, the exact edit, and the changed line before/after.
export interface GeneratedOrigin {
  operator: OperatorName;
  what: string;
  line: number;
  span: SourceSpan;
  before: string;
  after: string;
  // The text that replaces span (mutation-testing-elements' `replacement`).
  edit: string;
  contextLines: number;
  // The suite call that must go RED, in the suite's own filter syntax (e.g. `nh-ref-tests --test-case=MoE*`).
  judgedBy?: string | undefined;
}

// A generated mutant: a table-shaped row plus its origin.
export interface GeneratedMutant {
  mutation: Mutation;
  origin: GeneratedOrigin;
}

// Why a changed line or a candidate mutant produced no row; stated in every report.
export const LINE_SKIPS = ['COMMENT_OR_BLANK', 'PREPROCESSOR', 'LOGGING', 'ASSERTION'] as const;
export const MUTANT_SKIPS = ['OVER_LINE_CAP', 'OVER_CHANGE_CAP', 'ANCHOR_NOT_UNIQUE', 'DUPLICATE'] as const;
export type LineSkip = (typeof LINE_SKIPS)[number];
export type MutantSkip = (typeof MUTANT_SKIPS)[number];

// What generation did, as data: the caps it applied and everything it skipped, by reason.
export interface GenerationSummary {
  caps: { perLine: number; perChange: number };
  files: { file: string; changedLines: number; mutatedLines: number; suites: string[] }[];
  ignoredFiles: string[];
  changedLines: number;
  candidates: number;
  generated: number;
  skippedLines: Record<LineSkip, number>;
  skippedMutants: Record<MutantSkip, number>;
  notUnique: string[];
}

// A file's text and the suites (with filters) that should kill its mutants.
export interface GenerationInput {
  changed: ChangedFile[];
  allChangedFiles: string[];
  sourceDirRel: string;
  config: InDiffConfig;
  suites: SuiteCallable[];
  readText: (file: string) => string | null;
}

const LOGGING = /(?:\b(?:std::)?(?:printf|fprintf|sprintf|snprintf|puts|fputs|perror|cerr|cout|clog|vprintf|vfprintf)\b|\bspdlog::|\b(?:V?LOG|LOG_\w+|DLOG|fmt::print)\s*\()/;
const ASSERTION = /^\s*(?:assert|static_assert|DCHECK\w*|CHECK\w*)\s*\(/;
// How many lines of context an anchor may take on each side before the line is skipped as not unique.
export const MAX_CONTEXT_LINES = 4;

// The smallest run of whole lines around `line` whose text occurs exactly once in the file: the line
// alone, then one more line above, then below, and so on; null when even that stays ambiguous.
export function uniqueAnchorLines(text: string, lineStarts: number[], line: number): { from: number; to: number } | null {
  const last = lineStarts.length - 1;
  const slice = (a: number, b: number): string => text.slice(lineStarts[a - 1]!, lineEnd(text, lineStarts, b));
  let from = line;
  let to = line;
  for (let k = 0; k <= 2 * MAX_CONTEXT_LINES; k++) {
    if (countOccurrences(text, slice(from, to)) === 1) return { from, to };
    if (k % 2 === 0 && from > 1) from--;
    else if (to < last) to++;
    else if (from > 1) from--;
    else return null;
  }
  return null;
}

function lineEnd(text: string, lineStarts: number[], line: number): number {
  const next = lineStarts[line];
  return next === undefined ? text.length : next - 1;
}

function starts(text: string): number[] {
  const s = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') s.push(i + 1);
  return s;
}

// Takes up to cap edits, one of each operator family in OPERATORS order before a second of any.
function interleave(edits: LineEdit[], cap: number): LineEdit[] {
  const byOp = OPERATORS.map((op) => edits.filter((e) => e.op === op));
  const out: LineEdit[] = [];
  for (let round = 0; out.length < cap; round++) {
    let took = false;
    for (const list of byOp) if (list[round] && out.length < cap) { out.push(list[round]!); took = true; }
    if (!took) break;
  }
  return out;
}

function routeFor(file: string, cfg: InDiffConfig, suites: SuiteCallable[]): { suite: string; filter?: string; call: string; device?: true }[] {
  const call = (name: string, filter?: string): string => suiteCall(suites.find((s) => s.name === name) ?? { name }, filter);
  const r = cfg.routes.find((x) => globRegExp(x.files).test(file));
  if (r) return [{ suite: r.suite, ...(r.filter ? { filter: r.filter } : {}), call: call(r.suite, r.filter), ...(r.device ? { device: true as const } : {}) }];
  return suites.map((s) => ({ suite: s.name, call: s.name }));
}

// Pure: the changed lines of the recipe's sources → table-shaped rows, capped, every skip counted.
export function generateMutants(input: GenerationInput): { mutants: GeneratedMutant[]; summary: GenerationSummary } {
  const { config } = input;
  const prefix = input.sourceDirRel === '' || input.sourceDirRel === '.' ? '' : `${input.sourceDirRel.replace(/\/+$/, '')}/`;
  const isSource = (f: string): boolean => f.startsWith(prefix) && config.extensions.some((e) => f.toLowerCase().endsWith(e.toLowerCase()));
  const skippedLines = Object.fromEntries(LINE_SKIPS.map((k) => [k, 0])) as Record<LineSkip, number>;
  const skippedMutants = Object.fromEntries(MUTANT_SKIPS.map((k) => [k, 0])) as Record<MutantSkip, number>;
  const notUnique: string[] = [];
  const files: GenerationSummary['files'] = [];
  const perLine: GeneratedMutant[][] = [];
  let candidates = 0;
  let changedLines = 0;
  for (const cf of input.changed.filter((f) => isSource(f.file))) {
    const text = input.readText(cf.file);
    if (text === null) continue;
    const masked = maskSource(text);
    const codeLines = masked.code.split('\n');
    const rawLines = text.split('\n');
    const ls = starts(text);
    const scopes = functionScopes(masked.code);
    const earlyReturnDone = new Set<number>();
    const routes = routeFor(cf.file, config, input.suites);
    let mutatedLines = 0;
    changedLines += cf.lines.length;
    for (const line of cf.lines) {
      const code = codeLines[line - 1];
      const raw = rawLines[line - 1];
      if (code === undefined || raw === undefined) continue;
      if (code.trim() === '') { skippedLines.COMMENT_OR_BLANK++; continue; }
      if (code.trimStart().startsWith('#')) { skippedLines.PREPROCESSOR++; continue; }
      if (LOGGING.test(code)) { skippedLines.LOGGING++; continue; }
      if (ASSERTION.test(code)) { skippedLines.ASSERTION++; continue; }
      const edits = lineEdits(code, raw);
      const prev = codeLines.slice(0, line - 1).reverse().find((l) => l.trim() !== '')?.trim() ?? '';
      const atBoundary = prev === '' || /[;{})]$/.test(prev) || /:$/.test(prev) || /\belse$/.test(prev);
      const first = code.length - code.trimStart().length;
      const end = code.trimEnd().length;
      if (atBoundary && isDeletableStatement(code)) {
        edits.push({ op: 'delete-statement', start: first, end, text: '{}', what: 'statement deleted' });
      }
      const fn = scopes.fnOfLine[line] ?? -1;
      if (atBoundary && fn >= 0 && scopes.isVoid[fn] && !earlyReturnDone.has(fn) && /;\s*$/.test(code) && !/^\s*(?:return|else|case|default)\b/.test(code)) {
        edits.push({ op: 'early-return', start: first, end: first, text: 'return; ', what: 'early return before this statement' });
        earlyReturnDone.add(fn);
      }
      candidates += edits.length * routes.length;
      const seen = new Set<string>();
      const unique = edits.filter((e) => {
        const after = raw.slice(0, e.start) + e.text + raw.slice(e.end);
        if (after === raw || seen.has(after)) { if (after !== raw) skippedMutants.DUPLICATE++; return false; }
        seen.add(after);
        return true;
      });
      const capped = interleave(unique, config.perLineCap);
      skippedMutants.OVER_LINE_CAP += (unique.length - capped.length) * routes.length;
      if (capped.length === 0) continue;
      const span = uniqueAnchorLines(text, ls, line);
      if (span === null) {
        skippedMutants.ANCHOR_NOT_UNIQUE += capped.length * routes.length;
        notUnique.push(`${cf.file}:${line}`);
        continue;
      }
      const anchorStart = ls[span.from - 1]!;
      const anchor = text.slice(anchorStart, lineEnd(text, ls, span.to));
      const lineOff = ls[line - 1]! - anchorStart;
      const row: GeneratedMutant[] = [];
      for (const e of capped) {
        const replacement = anchor.slice(0, lineOff + e.start) + e.text + anchor.slice(lineOff + e.end);
        const after = raw.slice(0, e.start) + e.text + raw.slice(e.end);
        for (const r of routes) {
          const hash = sha256(`${cf.file}\0${anchor}\0${replacement}\0${r.suite}\0${r.filter ?? ''}`).slice(0, 8);
          const base = cf.file.split('/').pop()!.replace(/[^A-Za-z0-9._-]/g, '_');
          const id = `${base}-L${line}-${e.op}-${hash}${routes.length > 1 ? `-${r.suite.replace(/[^A-Za-z0-9._-]/g, '_')}` : ''}`;
          const offset = ls[line - 1]! + e.start;
          row.push({
            mutation: {
              id, file: cf.file, anchor, replacement, suite: r.suite, ...(r.filter ? { filter: r.filter } : {}),
              why: `generated (${e.op}): ${e.what} at ${cf.file}:${line}`, expect: 'caught', selfTest: false, device: r.device === true,
            },
            origin: {
              operator: e.op, what: e.what, line, before: raw, after, edit: e.text, contextLines: span.to - span.from, judgedBy: r.call,
              span: { start: { line, column: e.start + 1 }, end: { line, column: Math.max(e.end, e.start + 1) + 1 }, offset },
            },
          });
        }
      }
      perLine.push(row);
      mutatedLines++;
    }
    files.push({ file: cf.file, changedLines: cf.lines.length, mutatedLines, suites: routes.map((r) => r.call) });
  }
  // The per-change cap takes lines round-robin, so a long change keeps a mutant on every line it can.
  const mutants: GeneratedMutant[] = [];
  for (let round = 0; mutants.length < config.perChangeCap; round++) {
    let took = false;
    for (const row of perLine) if (row[round] && mutants.length < config.perChangeCap) { mutants.push(row[round]!); took = true; }
    if (!took) break;
  }
  const kept = perLine.reduce((s, r) => s + r.length, 0);
  skippedMutants.OVER_CHANGE_CAP = kept - mutants.length;
  mutants.sort((a, b) => (a.mutation.file === b.mutation.file ? a.origin.line - b.origin.line || a.origin.span.start.column - b.origin.span.start.column : a.mutation.file < b.mutation.file ? -1 : 1));
  return {
    mutants,
    summary: {
      caps: { perLine: config.perLineCap, perChange: config.perChangeCap },
      files, ignoredFiles: input.allChangedFiles.filter((f) => !isSource(f)),
      changedLines, candidates, generated: mutants.length, skippedLines, skippedMutants, notUnique,
    },
  };
}

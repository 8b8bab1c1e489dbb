import { worstClass, type ExitClass, type VerdictWord } from '../verdict/words.js';
import type { Baseline } from '../config/recipe.js';
import type { GarbageLine } from '../config/load.js';
import type { DriverReport, TokenMatchBlock } from '../profiles/types.js';
import { judgeDoctest, type DoctestJudgement } from '../profiles/doctest.js';
import { busyFromSamples, type BusyFigures, type BusyOptions, type UtilPoint, type WindowS } from '../quantity/busy.js';
import type { Readings } from '../quantity/busySpans.js';
import { compareToBaseline } from '../quantity/compare.js';
import { withheld } from '../quantity/make.js';
import { perOutputToken } from '../quantity/perToken.js';
import { engineTimerFigure } from '../gates/leg/engineTimer.js';
import type { Quantity } from '../quantity/types.js';
import { judgeTokenGate, type TokenGate } from './tokenGate.js';
import { decodeWindowOf } from '../gates/leg/window.js';
import { legClass } from '../gates/verdict.js';
import type { LegRecord } from '../results/types.js';

export interface AnalyzeInput {
  report: DriverReport;
  timed: boolean; // the log carried arrival times
  window: WindowS | null; // --window, which overrides the derived one
  samples: { points: UtilPoint[]; garbage: GarbageLine[]; nominalPeriodS?: number; readings?: Readings } | null; // --samples
  arch: string | null;
  baselines: Baseline[];
  // The leg re-judged from its leg log (rejudge.ts), when the log is one of nh-gate's.
  leg?: LegRecord | null;
}

export interface DecodeWindow {
  window: WindowS | null;
  source: 'flag' | 'arrival times' | 'unknown';
  block: TokenMatchBlock | null; // the decode-mode block the rate divides by
  why: string;
}

// The one token verdict analyze states. A leg log is judged as its leg was: by the harness, against the
// leg's golden (the engine's own lines are then only its claim, cross-checked). Any other log is judged from
// the engine's own counters. Never both: a llama.cpp leg log once read NOT MEASURED (no TOKEN MATCH line)
// above the harness's STRICT PASS.
export interface TokenVerdict {
  word: VerdictWord;
  by: 'harness' | 'engine counters';
  why: string;
}

export interface Analysis {
  tokenGate: TokenGate;
  tokens: TokenVerdict;
  decode: DecodeWindow;
  perOutputToken: Quantity;
  // The engine's own timer lines (profile role engineTimer), labelled as the engine's; null when the log has none.
  engineTimer: Quantity | null;
  busy: BusyFigures | null; // null: no --samples given
  baselines: Quantity[];
  doctest: DoctestJudgement[];
  exitClass: ExitClass;
  notes: string[];
  // The leg as the harness judged it again from its leg log (null for a log captured elsewhere).
  leg: LegRecord | null;
}

// The decode window: --window when given; else the one rule the gates use (gates/leg/window.ts).
export function deriveDecodeWindow(report: DriverReport, flag: WindowS | null): DecodeWindow {
  const dw = decodeWindowOf(report, 'decode');
  if (flag) return { window: flag, source: 'flag', block: dw.block, why: 'given by --window' };
  if (!dw.window) return { window: null, source: 'unknown', block: dw.block, why: dw.missing?.why ?? 'unknown' };
  return { window: dw.window, source: 'arrival times', block: dw.block, why: dw.source };
}

function baselineFor(b: Baseline, perToken: Quantity, busy: BusyFigures | null, referenceTier: number, arch: string | null): Quantity {
  let q: Quantity;
  if (b.quantity === 'perOutputToken') q = perToken;
  else if (!busy) return withheld(`GPU busy vs ${b.name}`, 'NO_SAMPLES', 'no --samples file was given, so there is no busy figure to compare');
  else q = b.method === 'timeWeighted' ? busy.timeWeighted : busy.nonzeroShare;
  const cmp = compareToBaseline(q, b, arch);
  if (cmp.status === 'measured' && referenceTier > 0) {
    return withheld(cmp.name, 'REFERENCE_TIER', `${referenceTier} reference-tier line(s): the run fell back to a portable path, so it is not the engine the baseline measured`);
  }
  return cmp;
}

function tokenVerdict(tokenGate: TokenGate, leg: LegRecord | null | undefined): TokenVerdict {
  if (!leg) return { word: tokenGate.judged, by: 'engine counters', why: tokenGate.why };
  return { word: leg.verdict, by: 'harness', why: 're-judged by the harness against the leg\'s golden, as the leg was' };
}

// The whole offline analysis as a pure function of the reader's report and the options.
export function analyze(input: AnalyzeInput): Analysis {
  const { report } = input;
  const notes: string[] = [];
  const tokenGate = judgeTokenGate(report);
  const decode = deriveDecodeWindow(report, input.window);
  const windowMissing: 'load-line-absent' | 'no-arrival-times' = report.load === null ? 'load-line-absent' : 'no-arrival-times';
  if (report.loadLines > 1) notes.push(`${report.loadLines} engine-load lines: this log holds more than one run; the first is used`);
  const block = decode.block;
  const perToken = input.leg
    ? input.leg.quantities.perOutputToken!
    : block === null && report.tokenMatch.length > 0
      ? withheld('per output token', 'MISSING_TERM', `no decode-mode TOKEN MATCH block (modes: ${report.tokenMatch.map((b) => b.mode).join(', ')}) — a fresh-prefill stream takes no decode step`)
      : perOutputToken({
          decodeWindowS: decode.window ? decode.window.endS - decode.window.startS : null,
          tokensCompared: block ? block.compared : null,
          tokensMatched: block ? block.matched : null,
          loadS: report.load ? report.load.loadS : null,
          windowMissing,
        });
  let busy: BusyFigures | null = null;
  if (input.samples) {
    const opts: BusyOptions = { windowMissing, readings: input.samples.readings ?? 'exact' };
    if (input.samples.nominalPeriodS !== undefined) opts.nominalPeriodS = input.samples.nominalPeriodS;
    busy = busyFromSamples(input.samples.points, decode.window, opts);
    if (input.samples.garbage.length > 0) notes.push(`samples file: ${input.samples.garbage.length} garbage line(s) skipped`);
  }
  const baselines = input.baselines.map((b) => baselineFor(b, perToken, busy, report.referenceTier.count, input.arch));
  const doctest = report.doctest.map((s) => judgeDoctest(s));
  const classes: ExitClass[] = [];
  // A leg log is judged as its leg was (harness vs golden); a foreign log by the engine's own counters.
  if (input.leg) classes.push(legClass(input.leg));
  else if (report.tokenMatch.length > 0 || report.verdicts.length > 0) classes.push(tokenGate.exitClass);
  for (const d of doctest) classes.push(d.verdict === 'GREEN' ? 'passed' : d.verdict === 'RED' ? 'failed' : 'void');
  if (classes.length === 0) {
    classes.push('void');
    notes.push('neither a token gate nor a doctest summary is in this log: NOT MEASURED');
  }
  // A figure the user explicitly asked for (--window, --samples) and did not get is nothing valid to judge.
  if (input.window && perToken.status === 'refused') classes.push('void');
  if (busy && busy.timeWeighted.status === 'refused') classes.push('void');
  const engineTimer = engineTimerFigure(report.engineTimer);
  if (engineTimer) notes.push(`the engine's own timer: ${report.engineTimer.length} line(s); it is the engine's claim, taken on its clock, not a harness measurement`);
  return { tokenGate, tokens: tokenVerdict(tokenGate, input.leg), decode, perOutputToken: perToken, engineTimer, busy, baselines, doctest, exitClass: worstClass(classes), notes, leg: input.leg ?? null };
}

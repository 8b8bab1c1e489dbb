import type { DriverReport } from '../../profiles/types.js';
import type { CrossCheck, TokenJudgement } from '../../results/types.js';
import { EXIT_1_WITHOUT_VERDICT } from './failure.js';

// The engine's own exit codes (SPEC §4) as the verdict they stand for.
export const ENGINE_EXIT_WORD: Record<number, string> = { 0: 'STRICT PASS', 1: 'DIVERGENCE', 2: 'REFUSING', 3: 'ZERO COMPARED', 4: 'SHORT' };

// The engine's verdict against the harness's: the words, the exit code and the TOKEN MATCH counts must agree.
// A near-tie the harness licensed is the one expected difference (the engine has no licence), and is explained.
export function crossCheck(harness: TokenJudgement, report: DriverReport, exitCode: number | null, blockIndex: number): CrossCheck {
  const last = report.verdicts[report.verdicts.length - 1];
  const engineWord = last ? (last.kind === 'REFUSING' ? 'REFUSING' : last.kind) : null;
  const block = report.tokenMatch[blockIndex] ?? null;
  const base = { engineWord, engineExit: exitCode, engineCompared: block?.compared ?? null, engineMatched: block?.matched ?? null };
  // The harness saw no ids (a declared events file or ids lines missing): the engine's counts stand unchecked.
  // An engine that claimed nothing either (it failed before any TOKEN MATCH or verdict line) is judged below.
  const claimed = block !== null || engineWord !== null;
  if (claimed && harness.word === 'VOID' && harness.compared === 0 && harness.reasons.length > 0 && harness.witness === 'engine') {
    const claim = block ? `${block.matched}/${block.compared} matched` : 'no TOKEN MATCH line';
    return { ...base, agree: false, explanation: `not cross-checked: the harness saw no ids (${harness.reasons.map((r) => r.code).join(', ')}), so the engine's claim (${claim}${engineWord ? `, ${engineWord}` : ''}) stands unchecked` };
  }
  const problems: string[] = countersAgainstIds(harness, report);
  // An engine that prints neither a TOKEN MATCH line nor a verdict makes no claim (a driver that prints only
  // ids): the harness judged alone. Its exit status still has to be 0: any other code is a claim of its own.
  if (problems.length === 0 && block === null && engineWord === null && report.tokenMatch.length === 0 && (exitCode === 0 || exitCode === null)) {
    return { ...base, agree: true, explanation: 'the engine made no claim of its own (no TOKEN MATCH line, no verdict); the harness judged alone' };
  }
  if (block === null) {
    if (engineWord !== null || report.tokenMatch.length > 0) problems.push('the engine printed no TOKEN MATCH line for this mode');
  } else {
    if (block.compared !== harness.compared) problems.push(`the engine compared ${block.compared} tokens, the harness ${harness.compared}`);
    if (block.matched !== harness.matched) problems.push(`the engine matched ${block.matched}, the harness ${harness.matched}`);
  }
  const exitWord = exitCode === null ? null : (ENGINE_EXIT_WORD[exitCode] ?? `exit ${exitCode}`);
  if (engineWord !== null && exitWord !== null && engineWord !== exitWord && !(engineWord === 'REFUSING' && exitCode === 3)) {
    problems.push(`the engine printed ${engineWord} but exited ${exitCode} (${exitWord})`);
  }
  const said = engineWord ?? (exitCode === 1 ? EXIT_1_WITHOUT_VERDICT : exitWord);
  if (said === null) problems.push('the engine printed no verdict and its exit code is unknown');
  else if (harness.word === 'NEAR-TIE PASS' && said === 'DIVERGENCE') {
    if (problems.length === 0) return { ...base, agree: true, explanation: 'the engine has no near-tie licence and said DIVERGENCE; the harness classified the mismatch from the golden\'s margins' };
  } else if (harness.word === 'VOID' && (said === 'ZERO COMPARED' || said === 'REFUSING' || said === EXIT_1_WITHOUT_VERDICT)) {
    // both refuse to judge (exit 1 with no verdict line: the engine failed, it did not say DIVERGENCE)
  } else if (said !== harness.word) problems.push(`the engine said ${said}, the harness ${harness.word}`);
  return { ...base, agree: problems.length === 0, explanation: problems.length ? problems.join('; ') : 'engine and harness agree' };
}

// Per prompt, the engine's own counters (its rows) against the ids the harness read, and a driver's ids lines
// against its events: they must agree, or the leg says which side is wrong. Counters judged from counts
// only (the engine's claim) have nothing to be checked against.
export function countersAgainstIds(h: TokenJudgement, report: DriverReport): string[] {
  if (h.witness !== 'harness') return [];
  const out: string[] = [];
  const wrong = 'the engine\'s counter is wrong, or it reported other ids than it counted';
  for (const row of report.prompts) {
    if (row.block > 0) continue;
    const p = h.prompts.find((x) => x.prompt === row.prompt);
    if (!p || p.got === null) continue;
    const said: Array<[string, number | null, number]> = [['compared', row.compared, p.compared], ['matched', row.matched, p.matched]];
    // got: lines carry only the compared ids, so a generated count is checked against events and ids lines.
    if (h.source !== 'printed rows') said.unshift(['generated', row.generated, p.generated]);
    for (const [field, engine, harness] of said) {
      if (engine !== null && engine !== harness) out.push(`prompt ${row.prompt}: the engine's row (log line ${row.line}) says ${field}=${engine}, the ids the harness read (${h.source}) give ${harness} — ${wrong}`);
    }
  }
  if (h.source === 'events') {
    for (const l of report.ids) {
      const p = h.prompts.find((x) => x.prompt === l.prompt);
      if (!p || l.tokens === null || p.got === null) continue;
      const k = firstDifference(l.tokens, p.got);
      if (k !== null) out.push(`prompt ${l.prompt}: the ids line (log line ${l.line}) and the events file differ at position ${k} (${l.tokens[k] ?? 'none'} vs ${p.got[k] ?? 'none'}) — the driver reported two different id sequences`);
    }
  }
  return out;
}

function firstDifference(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return null;
}

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
  const problems: string[] = [];
  // An engine that prints neither a TOKEN MATCH line nor a verdict makes no claim (a driver that prints only
  // ids): the harness judged alone. Its exit status still has to be 0: any other code is a claim of its own.
  if (block === null && engineWord === null && report.tokenMatch.length === 0 && (exitCode === 0 || exitCode === null)) {
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

import type { ProcessRun } from '../../exec/types.js';
import { lastLines } from '../../exec/types.js';
import type { DriverReport } from '../../profiles/types.js';
import { reason, type Reason } from '../../verdict/reasons.js';

// The engine's exit 1 means DIVERGENCE *or failure*: vllm.cpp's nemotron-h-gen returns 1 for
// "engine load FAILED" and "prompt N FAILED" as well as for DIVERGENCE (examples/nemotron_h_gen/main.cpp).
// Only a verdict line makes exit 1 a claim of DIVERGENCE; without one the cross-check reads it as this word.
export const EXIT_1_WITHOUT_VERDICT = 'FAILED';

// Exit 1 with no verdict line and no TOKEN MATCH line: the engine stopped before its own comparison, so
// the leg is void by name: LOAD_FAILED before the load-complete line (nothing ran), CRASHED after it (a
// prompt failed). `loadSeen` counts a load event of the events file too.
export function engineFailure(run: ProcessRun, report: DriverReport, loadSeen: boolean): Reason | null {
  if (run.exitCode !== 1 || report.verdicts.length > 0 || report.tokenMatch.length > 0) return null;
  const last = lastLines(run, 1)[0];
  const tail = last ? ` (its last line: ${last})` : '';
  if (!loadSeen && report.load === null) {
    return reason('LOAD_FAILED', `the engine exited 1 before its load-complete line and compared nothing: a load failure, not a DIVERGENCE${tail}`);
  }
  return reason('CRASHED', `the engine exited 1 after loading without a TOKEN MATCH or verdict line: a failure (a prompt FAILED), not a DIVERGENCE${tail}`);
}

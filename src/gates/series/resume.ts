import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunResult, LegRecord } from '../../results/types.js';
import { NhGateError } from '../../errors.js';
import type { LegOutcome } from '../leg/leg.js';
import { abLegPoint } from '../../report/plots.js';

// --resume RUN_DIR: a series that lost legs to its executor (a job cancelled, lost with its node, timed
// out, never started) runs again into the same directory, keeping every leg that finished and
// submitting only the missing ones. The plan must be the one the directory was made by.

// Void reasons that mean the executor lost the leg (not that the engine failed it): these legs run again.
const EXECUTOR_FAULT = /^(SLURM_[A-Z_]+|NEVER_STARTED|RUN_DIR_UNREACHABLE|PARTIAL)$/;

export interface Resumed {
  runDir: string;
  previous: RunResult;
  kept: Map<number, LegOutcome>;
}

// Whether a leg of an earlier run stands (kept) or was lost by the executor (run again).
export function legStands(l: LegRecord): boolean {
  return !l.process.interrupted && !l.voidReasons.some((r) => EXECUTOR_FAULT.test(r.code));
}

// Reads RUN_DIR/result.json; BAD_INPUT when it is missing or of another command.
export function loadResume(runDirArg: string, command: string): Resumed {
  const runDir = resolve(runDirArg);
  const file = join(runDir, 'result.json');
  let previous: RunResult;
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')) as RunResult;
  } catch (err) {
    throw new NhGateError('BAD_INPUT', `--resume ${runDirArg}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'pass a run directory an earlier nh-gate a3/ab wrote (.nh-gate/runs/<stamp>-<gate>)');
  }
  if (previous.command !== command) throw new NhGateError('BAD_INPUT', `--resume ${runDirArg}: that run is 'nh-gate ${previous.command}', not '${command}'`, `resume it with 'nh-gate ${previous.command} --resume ${runDirArg}'`);
  const kept = new Map<number, LegOutcome>();
  for (const record of previous.legs ?? []) {
    if (!legStands(record)) continue;
    kept.set(record.index, { record, timeline: null, abPoint: abLegPoint(record) });
  }
  return { runDir, previous, kept };
}

// The new plan must be the old one (same legs, order, seed, gate): otherwise kept legs would answer another question.
export function checkResumable(r: Resumed, planText: string, gateSha: string | null, recipe: string): void {
  const p = r.previous;
  const why = p.plan?.text !== planText ? 'the plan differs (legs, order or seed)'
    : (p.gate?.sha256 ?? null) !== gateSha ? 'the gate file changed since'
      : p.recipe?.name !== recipe ? `it ran recipe '${p.recipe?.name}'` : null;
  if (why) throw new NhGateError('BAD_INPUT', `--resume ${r.runDir}: ${why}, so its finished legs cannot be kept for this series`, 'resume with the same options and gate it ran with, or start a new run without --resume');
}

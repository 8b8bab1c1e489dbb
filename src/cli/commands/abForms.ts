import { NhGateError, type ExitClass } from '../../errors.js';
import type { Inputs } from '../../gates/setup.js';
import { positiveInt } from './a3.js';
import type { RunOutput } from '../report.js';

// The A/B forms beyond the fixed same-binary one (issue 12): cross-commit (--base/--head), sequential
// (--sequential, or a gate with sequential.always) and A/A calibration (--aa). Kept out of ab.ts so the
// fixed form's command stays as it was; ab.ts calls these two functions and nothing else of them.

export interface AbFormFlags {
  flag?: string;
  sequential?: boolean;
  aa?: boolean;
  budget?: string;
  base?: string;
  head?: string;
  dryRun?: boolean;
}

export interface AbCommon {
  argv: string[];
  arch?: string | undefined;
  repeats?: number | undefined;
  order: 'abba' | 'random';
  seed: number;
  mode: 'decode';
  jobs: number;
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  json: boolean;
  // Where the run is reported (text as legs end, or the JSON document; the exports).
  output: RunOutput;
}

// Whether this is a cross-commit A/B, checked before the inputs load (it needs no flag).
export function crossCommitRequested(o: AbFormFlags): boolean {
  const cross = o.base !== undefined || o.head !== undefined;
  if (!cross) return false;
  if (o.base === undefined || o.head === undefined) throw new NhGateError('USAGE', `--${o.base === undefined ? 'base' : 'head'} is missing: a cross-commit A/B needs both --base REV and --head REV`, 'pass both, e.g. --base main --head HEAD');
  if (o.base === o.head) throw new NhGateError('USAGE', `--base and --head are both '${o.base}'`, 'a cross-commit A/B compares two commits; for one binary under a flag use --flag');
  if (o.sequential || o.aa || o.flag) throw new NhGateError('USAGE', `--base/--head cannot be combined with ${o.sequential ? '--sequential' : o.aa ? '--aa' : '--flag'}`, 'run the cross-commit A/B on its own (it compares two builds, not a flag)');
  if (o.dryRun) throw new NhGateError('USAGE', '--dry-run is not supported with --base/--head', 'drop --dry-run');
  return true;
}

// Runs the form these flags ask for, or returns null for the fixed same-binary A/B.
export async function runAbForm(o: AbFormFlags, inputs: Inputs, c: AbCommon): Promise<ExitClass | null> {
  const { realDeps } = await import('../../gates/deps.js');
  if (o.base !== undefined && o.head !== undefined) {
    const { runCrossCommit } = await import('../../gates/ab/crossCommit.js');
    const out = await runCrossCommit({ ...c, inputs, base: o.base, head: o.head }, c.output.attach(await realDeps()));
    c.output.finish(out.result);
    return out.exitClass;
  }
  const sequential = Boolean(o.sequential || o.aa || inputs.gate?.gate.sequential?.always);
  if (o.budget !== undefined && !sequential) throw new NhGateError('USAGE', '--budget is the leg budget of a sequential A/B', 'add --sequential, or use --repeats for a fixed number of legs');
  if (!sequential) return null;
  if (c.repeats !== undefined) throw new NhGateError('USAGE', '--repeats fixes the number of legs; a sequential A/B stops by itself', 'drop --repeats (use --budget to cap the legs)');
  const budgetLegs = o.budget === undefined ? undefined : positiveInt('--budget', o.budget);
  const { runAbSequential, sequentialPlan } = await import('../../gates/ab/abSequential.js');
  const so = { ...c, inputs, aa: Boolean(o.aa), budgetLegs };
  if (o.dryRun) {
    const { describePlan } = await import('../../plan/plan.js');
    process.stdout.write(describePlan(sequentialPlan(so)) + '\n');
    return 'passed';
  }
  const out = await runAbSequential(so, c.output.attach(await realDeps()));
  c.output.finish(out.result);
  return out.exitClass;
}

import type { Quantity } from '../quantity/types.js';
import type { Mode } from '../plan/plan.js';
import { describePlan, planA3 } from '../plan/plan.js';
import type { GateDeps } from './deps.js';
import type { Inputs } from './setup.js';
import { runSeries, type SeriesOutcome } from './series/series.js';
import { tokenGateVerdict } from './verdict.js';
import { ledgerBaselineRatio } from './ledgerBaseline.js';

export interface A3Options {
  argv: string[];
  inputs: Inputs;
  arch?: string | undefined;
  mode: Mode;
  jobs: number;
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  resume?: string | undefined;
}

// nh-gate a3: build if needed, run the driver once per mode, judge its tokens in the harness against
// the golden, cross-check the engine, per-token over the decode window, busy when a GPU is present.
// On a device arch the recipe's device-arm flags are turned on: the claim is that the device ran it.
export async function runA3(o: A3Options, deps: GateDeps): Promise<SeriesOutcome> {
  const { recipe, gate } = o.inputs;
  return runSeries({
    command: 'a3', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? gate?.gate.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS, resume: o.resume,
    gateName: gate?.gate.name ?? `a3-${recipe.name}`,
    plan: (a) => {
      const deviceEnv: Record<string, string> = {};
      if (a !== 'cpu') for (const f of Object.values(recipe.flags)) if (f.deviceArm) deviceEnv[f.env] = f.on;
      const legs = planA3(recipe, gate?.gate ?? null, o.mode, deviceEnv);
      return { legs, binaries: [{ arms: ['single'], tree: { kind: 'recipe' }, logFile: 'build.log' }], warmupLegs: 0, record: { text: describePlan(legs), order: legs.order, seed: legs.seed, legs: legs.legs.length } };
    },
    judge: (legs, _done, at) => {
      const notes: string[] = [];
      const device = Object.entries(recipe.flags).filter(([, f]) => f.deviceArm && legs[0]?.flagEnv[f.env] === f.on).map(([n]) => n);
      if (o.inputs.golden.origin === 'regression') notes.push(`golden ${o.inputs.golden.name} is a REGRESSION golden (the engine was its own oracle): a pass means "unchanged since capture", not "correct"`);
      if (device.length) notes.push(`device arm: ${device.join(', ')} on (arch ${at.arch}); reference-tier lines would void the run`);
      const quantities: Record<string, Quantity> = recipe.ledgerBaseline && legs.length > 0 ? { perTokenVsLedger: ledgerBaselineRatio({ ...at, legs: [...legs] }, o.resultsBase) } : {};
      return { quantities, comparison: null, verdict: tokenGateVerdict(legs, at.plannedLegs || 1), notes };
    },
  }, deps);
}

import { join } from 'node:path';
import type { Gate, MetricScale } from '../../config/gate.js';
import { NhGateError } from '../../errors.js';
import { baseEnv, interleave, planAb, type ArmSpec, type Mode, type Plan } from '../../plan/plan.js';
import { withWarmup } from '../../plan/warmup.js';
import type { AbForm } from '../../results/comparison.js';
import type { PlanRecord } from '../../results/types.js';
import type { Inputs } from '../setup.js';
import { BLOCK_LEGS } from './blocks.js';
import { bindClaim, checkProducible, onArmOf, type Claim } from './claim.js';
import { deviationsOf, refuseIfLocked, type DesignChoices, type Deviation } from './deviations.js';
import type { IntervalMethod } from './judge/judge.js';
import { serveLoadOf, type ServeLoad } from '../../config/serveLoad.js';

// claim → plan: one value that says everything an A/B form will do before it does any of it: the binaries
// per arm (one build, or two commits' builds labelled "two binaries"), the arms and which is "on", the leg
// order, warm-up legs, the stop rule (fixed N, or sequential with its budget), the interval method, and every
// deviation from the pre-registered gate. --dry-run prints it; the series runs it; the judge reads it.

export interface ResolvedRev {
  rev: string;
  commit: string;
}

// What the command line asked for, normalised (the CLI's parsing is done; revisions already resolved).
export interface AbRequest {
  // sequential: the gate's sequential block (--sequential, or "always"); aa: --aa.
  stop: 'fixed' | 'sequential' | 'aa';
  inputs: Inputs;
  // --base/--head: the two commits and the repository they are in.
  commits: { top: string; base: ResolvedRev; head: ResolvedRev } | null;
  cli: DesignChoices;
  resultsBase: string;
}

export type PlannedBinaries = { kind: 'one' } | { kind: 'two'; label: string; top: string; worktrees: string; base: ResolvedRev; head: ResolvedRev };

export interface AbPlan {
  form: AbForm;
  claim: Claim;
  method: IntervalMethod;
  binaries: PlannedBinaries;
  legs: Plan;
  order: 'abba' | 'random';
  seed: number;
  warmupLegs: number;
  stop: NonNullable<PlanRecord['stop']>;
  plannedJudgedLegs: number;
  deviations: Deviation[];
  // sequential.requireCalibrationDays: the series refuses without a recent A/A on this silicon.
  calibrationDays: number | null;
  gateName: string;
  plotTitle: string;
  // The gate's "serve" block: each leg one load against a server started with its arm's env (null: driver legs).
  serve: ServeLoad | null;
}

type GateRef = NonNullable<Inputs['gate']>;

// A sequential or A/A form needs a gate with a claim and a sequential block; the budget in whole blocks.
function sequentialOf(r: AbRequest): { gate: GateRef; seq: NonNullable<Gate['sequential']>; budgetLegs: number } {
  const gate = r.inputs.gate;
  const flag = r.stop === 'aa' ? '--aa' : '--sequential';
  if (!gate) throw new NhGateError('USAGE', `nh-gate ab ${flag} needs a pre-registered gate`, 'pass --gate FILE whose gate has a hypothesis or criteria and a "sequential" block');
  if (!gate.claim) throw new NhGateError('BAD_INPUT', `${gate.path}: hypothesis: missing — a sequential test needs a pre-registered claim`, 'add a "hypothesis" (metric, expect, refutedIfLessThanPct) or "criteria"');
  const seq = gate.gate.sequential;
  if (!seq) throw new NhGateError('BAD_INPUT', `${gate.path}: sequential: missing — the test needs a registered noise scale and a leg budget`, 'add "sequential": { "sigmaLogRatio": S, "maxLegs": N } (measure S with ab --aa)');
  const budgetLegs = r.cli.budgetLegs ?? seq.maxLegs;
  if (budgetLegs < BLOCK_LEGS) throw new NhGateError('USAGE', `${r.cli.budgetLegs !== undefined ? '--budget' : `${gate.path}: sequential.maxLegs`}: sequential.maxLegs ${budgetLegs} is smaller than one ABBA block (${BLOCK_LEGS} legs)`, `give a budget of at least ${BLOCK_LEGS} legs (whole blocks of ${BLOCK_LEGS})`);
  return { gate, seq, budgetLegs };
}

// Each criterion's registered scale: its metric's own, else (a ratio) the gate's sigmaLogRatio.
function scalesOf(claim: Claim, seq: NonNullable<Gate['sequential']>, path: string): Record<string, MetricScale> {
  const out: Record<string, MetricScale> = {};
  for (const c of claim.criteria) {
    const own = seq.scales?.[c.metric];
    const s = own ?? (c.scale === 'ratio' && seq.sigmaLogRatio !== undefined ? { sigma: seq.sigmaLogRatio, ...(seq.tauLogRatio !== undefined ? { tau: seq.tauLogRatio } : {}) } : undefined);
    if (!s) throw new NhGateError('BAD_INPUT', `${path}: sequential.scales.${c.metric}: missing — the ${c.scale} criterion on ${c.metric} needs its registered noise scale`, `add "scales": { "${c.metric}": { "sigma": S } } (in ${c.scale === 'ratio' ? 'log-ratio units' : 'percentage points'}; measure it with ab --aa)`);
    out[c.key] = s;
  }
  return out;
}

// The two arms: flag values (one binary), or base and head (two binaries, no flag between them).
function armsOf(r: AbRequest, mode: Mode): { legsOf: (repeats: number, order: 'abba' | 'random', seed: number) => Plan; labels: Record<'A' | 'B', string> } {
  const { inputs, commits } = r;
  const g = inputs.gate?.gate ?? null;
  if (commits) {
    const env = baseEnv(inputs.recipe, g);
    const arm = (a: 'A' | 'B', side: 'base' | 'head', c: ResolvedRev): ArmSpec => ({ arm: a, flagValue: side, valueLabel: `${side} ${c.rev} = ${c.commit.slice(0, 12)}`, env, unset: [] });
    const arms = { A: arm('A', 'base', commits.base), B: arm('B', 'head', commits.head) };
    return {
      legsOf: (repeats, order, seed) => interleave({ arms, flag: null, repeats, order, seed, mode, name: (a) => `${a === 'A' ? 'base' : 'head'} ${(a === 'A' ? commits.base : commits.head).commit.slice(0, 8)}` }),
      labels: { A: `base ${commits.base.rev}`, B: `head ${commits.head.rev}` },
    };
  }
  const flag = inputs.flag!;
  const given = r.cli.arms ?? g?.arms ?? { A: 'off', B: 'on' };
  const tokens = r.stop === 'aa' ? { A: given.A, B: given.A } : given;
  return {
    legsOf: (repeats, order, seed) => planAb({ recipe: inputs.recipe, gate: g, flag, repeats, order, seed, mode, armValues: tokens }),
    labels: { A: `${flag}=${tokens.A}`, B: `${flag}=${tokens.B}` },
  };
}

// The decode mode: --mode, else the gate's. An A/B compares one mode; a gate registering 'both' is refused.
function modeOf(r: AbRequest): Mode {
  const g = r.inputs.gate;
  if (r.cli.mode) return r.cli.mode;
  if (g?.gate.mode === 'both') throw new NhGateError('BAD_INPUT', `${g.path}: mode: "both" — an A/B compares its arms in one mode`, 'register "mode": "decode" or "fresh-prefill" (an a3 gate runs both)');
  return g?.gate.mode ?? 'decode';
}

function formOf(r: AbRequest): AbForm {
  if (r.stop === 'aa') return 'aa';
  if (r.commits) return 'cross-commit';
  return r.stop;
}

// The gate's serve load; a serve A/B is same-binary (a flag is the server's environment), never two commits.
function serveOf(r: AbRequest): ServeLoad | null {
  const g = r.inputs.gate;
  if (!g?.gate.serve) return null;
  if (r.commits) throw new NhGateError('USAGE', `${g.path}: serve: an A/B under load compares one flag in one binary; --base/--head builds two`, 'drop --base/--head (or use a gate without a "serve" block for a cross-commit A/B)');
  if (r.cli.mode) throw new NhGateError('USAGE', `--mode ${r.cli.mode}: a serve leg is one load of whole requests, not a decode mode`, 'drop --mode (a gate with a "serve" block times every request as it streams)');
  const serve = r.inputs.recipe.serve;
  if (!serve) throw new NhGateError('BAD_INPUT', `${g.path}: serve: recipe '${r.inputs.recipe.name}' has no "serve" block: nh-gate does not know how to start its server`, 'use a recipe with a serve block (llama-cpp), or drop the gate\'s "serve" block');
  return serveLoadOf(g.gate.serve, serve.slots);
}

// The plan of an A/B request (pure: the worktrees are made by the series, the calibration looked up there).
export function planAbForm(r: AbRequest): AbPlan {
  const g = r.inputs.gate?.gate ?? null;
  const deviations = deviationsOf(g, r.cli);
  refuseIfLocked(r.inputs.gate, deviations);
  const order = r.cli.order ?? g?.order ?? 'abba';
  const seed = r.cli.seed ?? g?.seed ?? 1;
  const warmupLegs = r.cli.warmupLegs ?? g?.warmupLegs ?? 0;
  const seqd = r.stop === 'fixed' ? null : sequentialOf(r);
  const blocks = seqd ? Math.floor(seqd.budgetLegs / BLOCK_LEGS) : 0;
  const repeats = seqd ? blocks * 2 : (r.cli.repeats ?? g?.repeats ?? 4);
  const arms = armsOf(r, modeOf(r));
  const legs = withWarmup(arms.legsOf(repeats, order, seed), warmupLegs);
  const flag = legs.flag ? { env: legs.flag.env, on: legs.flag.on } : null;
  const spec = r.inputs.gate?.claim ?? null;
  if (spec) checkProducible(spec, r.inputs.recipe, r.inputs.gate!.path);
  const claim = bindClaim(spec, r.commits ? 'B' : onArmOf(legs.arms!, flag), arms.labels);
  const form = formOf(r);
  const method: IntervalMethod = !seqd ? { kind: 'bootstrap' }
    : r.stop === 'aa' ? { kind: 'aa-calibrated', alpha: seqd.seq.alpha, scales: scalesOf(claim, seqd.seq, seqd.gate.path), budgetBlocks: blocks }
    : { kind: 'anytime-valid', alpha: seqd.seq.alpha, scales: scalesOf(claim, seqd.seq, seqd.gate.path) };
  const c = r.commits;
  const binaries: PlannedBinaries = c
    ? { kind: 'two', label: `two binaries: base ${c.base.rev} = ${c.base.commit}, head ${c.head.rev} = ${c.head.commit}`, top: c.top, worktrees: join(r.resultsBase, 'worktrees'), base: c.base, head: c.head }
    : { kind: 'one' };
  const what = c ? 'cross-commit' : r.inputs.flag!;
  const serve = serveOf(r);
  return {
    form, claim, method, binaries, legs, order, seed, warmupLegs, deviations,
    stop: seqd ? { kind: 'sequential', budgetLegs: blocks * BLOCK_LEGS, blocks } : { kind: 'fixed', legs: repeats * 2 },
    plannedJudgedLegs: repeats * 2,
    calibrationDays: r.stop === 'sequential' ? (seqd?.seq.requireCalibrationDays ?? null) : null,
    gateName: c ? `${g?.name ?? 'ab'}-${c.base.commit.slice(0, 8)}-vs-${c.head.commit.slice(0, 8)}` : r.stop === 'aa' ? `${g!.name}-aa` : (g?.name ?? `ab-${what}`),
    plotTitle: `${what}${r.stop === 'aa' ? ' A/A' : ''}: ${serve ? 'TPOT p50' : 'per-token times'} per leg (A=${arms.labels.A}, B=${arms.labels.B})`,
    serve,
  };
}

import { join } from 'node:path';
import { writeAtomic } from '../../io/atomic.js';
import { NhGateError } from '../../errors.js';
import { renderSvg } from '../../report/plots.js';
import type { BinariesRecord } from '../../results/comparison.js';
import { ledgerPath } from '../../results/ledger.js';
import { readLedger } from '../../results/ledgerRead.js';
import type { LegRecord } from '../../results/types.js';
import { siliconKey } from '../../silicon/types.js';
import type { GateDeps } from '../deps.js';
import { runSeries, type SeriesOutcome } from '../series/series.js';
import type { Inputs } from '../setup.js';
import { findCalibration } from './calibration.js';
import { seriesPlanOf } from './describe.js';
import { judgeAb } from './judge/judge.js';
import { planAbForm, type AbPlan, type AbRequest } from './plan.js';
import type { DesignChoices } from './deviations.js';
import { resolveCommits } from '../../build/worktrees.js';
import { sequentialSpec } from './sequentialPlot.js';

// Every A/B form, one way: the plan → the one series (the executor seam, resume, disk reserve, dead-run
// marking and the missing-binary check included) → the one judge after every leg → the report.

export interface AbRunOptions {
  argv: string[];
  inputs: Inputs;
  arch?: string | undefined;
  jobs: number;
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
  resume?: string | undefined;
}

// The binaries behind the arms as the legs ran them (each commit's binary sha from its legs).
export function binariesRecord(p: AbPlan, legs: readonly LegRecord[]): BinariesRecord {
  const b = p.binaries;
  if (b.kind === 'one') return { kind: 'one' };
  const sha = (arm: 'A' | 'B'): string | null => legs.find((l) => l.arm === arm && l.binarySha256 !== null)?.binarySha256 ?? null;
  const side = (arm: 'A' | 'B', c: typeof b.base) => ({ rev: c.rev, commit: c.commit, tree: join(b.worktrees, c.commit.slice(0, 12)), binarySha256: sha(arm) });
  const base = side('A', b.base);
  const head = side('B', b.head);
  return { kind: 'two', label: b.label, base, head, identical: base.binarySha256 !== null && base.binarySha256 === head.binarySha256 };
}

// Refuses by name when the gate asks for a recent A/A calibration on this silicon and the ledger has none.
async function calibrationNote(p: AbPlan, o: AbRunOptions, deps: GateDeps): Promise<string | null> {
  if (p.calibrationDays === null) return null;
  const key = siliconKey(await deps.detectSilicon());
  const gate = o.inputs.gate!.gate.name;
  const c = findCalibration(readLedger(ledgerPath(o.resultsBase)), gate, key, deps.now(), p.calibrationDays);
  if (!c.ok) throw new NhGateError('NO_CALIBRATION', c.message, `run 'nh-gate ab --aa --gate <this gate>' on this machine first`);
  return `calibration: A/A on ${key} at ${c.at} (ledger line ${c.line}): false-alarm rate ${(100 * c.rate).toFixed(1)}%`;
}

// The whole A/B from options, for programs and tests: the same plan and series the CLI runs.
export interface AbOptions extends AbRunOptions, DesignChoices {
  stop?: AbRequest['stop'] | undefined;
  // --base/--head revisions (resolved here, in the repository holding the recipe).
  base?: string | undefined;
  head?: string | undefined;
}

export async function runAb(o: AbOptions, deps: GateDeps): Promise<SeriesOutcome> {
  const commits = o.base !== undefined && o.head !== undefined ? await resolveCommits(deps.exec, o.inputs.root, o.base, o.head) : null;
  const stop = o.stop ?? (o.inputs.gate?.gate.sequential?.always ? 'sequential' : 'fixed');
  const cli: DesignChoices = { repeats: o.repeats, order: o.order, seed: o.seed, arms: o.arms, budgetLegs: o.budgetLegs, warmupLegs: o.warmupLegs, mode: o.mode, arch: o.arch };
  return runAbPlan(planAbForm({ stop, inputs: o.inputs, commits, cli, resultsBase: o.resultsBase }), o, deps);
}

// Runs an A/B plan; a sequential run also draws each criterion's confidence sequence.
export async function runAbPlan(p: AbPlan, o: AbRunOptions, deps: GateDeps): Promise<SeriesOutcome> {
  // A serve leg's server and load run on this host: a Slurm job has no client beside it to time the tokens.
  if (p.serve && deps.legRunner?.kind === 'slurm') throw new NhGateError('USAGE', `${o.inputs.gate!.path}: serve: an A/B under load runs its server and client on this host; --executor slurm sends legs to other nodes`, 'drop --executor slurm (or run nh-gate itself on the node, e.g. inside srun)');
  const note = await calibrationNote(p, o, deps);
  const runLeg = p.serve ? (await import('../../serve/abLeg.js')).serveLegRunner(p.serve) : undefined;
  const out = await runSeries({
    command: 'ab', argv: o.argv, inputs: o.inputs, archClaim: o.arch ?? o.inputs.gate?.gate.arch, jobs: o.jobs,
    resultsBase: o.resultsBase, checkpoint: o.checkpoint, timeoutS: o.timeoutS, resume: o.resume,
    gateName: p.gateName, abPlotTitle: p.plotTitle, runLeg,
    plan: () => seriesPlanOf(p),
    judge: (legs) => {
      const j = judgeAb({ form: p.form, claim: p.claim, method: p.method, legs, warmupLegs: p.warmupLegs, plannedJudgedLegs: p.plannedJudgedLegs, binaries: binariesRecord(p, legs), deviations: p.deviations, seed: p.seed });
      return note ? { ...j, notes: [note, ...j.notes] } : j;
    },
  }, deps);
  const c = out.result.comparison;
  if (c?.kind === 'ab' && c.method.kind !== 'bootstrap') {
    for (const [i, m] of c.metrics.entries()) {
      if (!m.sequential?.blocks.some((b) => b.lo !== null)) continue;
      const title = `${o.inputs.gate?.gate.name ?? p.gateName}${p.form === 'aa' ? ' A/A' : ''}: ${m.key}, anytime-valid interval after each block (${m.word ?? 'A/A'})`;
      writeAtomic(join(out.result.runDir, i === 0 ? 'sequential.svg' : `sequential-${m.key}.svg`), await renderSvg(sequentialSpec(title, m)));
    }
  }
  return out;
}

import { join } from 'node:path';
import { buildRecipe, buildVars } from '../../build/build.js';
import { featureParserFor } from '../../build/features.js';
import { expandArgv, expandString } from '../../build/template.js';
import { monoNs } from '../../exec/clock.js';
import { acquireLock, lockPath } from '../../exec/lock.js';
import { onInterrupt } from '../../exec/interrupt.js';
import { describeEnd, exitedCleanly, lastLines } from '../../exec/types.js';
import { NhGateError } from '../../errors.js';
import { abbaOrder } from '../../plan/order.js';
import { baseEnv, type PlannedLeg } from '../../plan/plan.js';
import { appendLedger } from '../../results/ledger.js';
import { saveRun, type PlotInputs } from '../../report/save.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../../results/types.js';
import { createRunDir } from '../../results/write.js';
import { writeAtomic } from '../../io/atomic.js';
import { abVerdict, comparisonNotes } from './ab.js';
import { checkArch } from '../arch.js';
import { compareArms } from './compare.js';
import type { GateDeps } from '../deps.js';
import { runLeg, type LegContext, type LegOutcome } from '../leg/leg.js';
import type { SeriesOutcome } from '../series.js';
import type { Inputs } from '../setup.js';
import { ensureWorktree, gitTop, resolveRev, rootInTree } from './worktrees.js';

// nh-gate ab --base REV --head REV: two commits, two worktrees, two builds, legs interleaved A B B A on
// one machine. A = base, B = head; a hypothesis's "on" reads as head. The result says "two binaries"
// with both commit shas: this is never the same-binary flag A/B, and is labelled so everywhere.

export interface CrossCommitOptions {
  argv: string[];
  inputs: Inputs;
  base: string;
  head: string;
  arch?: string | undefined;
  repeats?: number | undefined;
  seed: number;
  mode: 'decode' | 'fresh-prefill';
  jobs: number;
  resultsBase: string;
  checkpoint?: string | undefined;
  timeoutS?: number | undefined;
}

// Resolves both revisions (refusing one commit under two names) and runs the two-build series.
export async function runCrossCommit(o: CrossCommitOptions, deps: GateDeps): Promise<SeriesOutcome> {
  if (o.base === o.head) throw new NhGateError('USAGE', `--base and --head are both '${o.base}'`, 'a cross-commit A/B compares two commits; for one binary under a flag use --flag');
  const top = await gitTop(deps.exec, o.inputs.root);
  const sha = { A: await resolveRev(deps.exec, top, '--base', o.base), B: await resolveRev(deps.exec, top, '--head', o.head) };
  if (sha.A === sha.B) throw new NhGateError('USAGE', `--base ${o.base} and --head ${o.head} are the same commit ${sha.A}`, 'a cross-commit A/B compares two commits; for one binary under a flag use --flag');
  const interrupt = onInterrupt((sig) => process.stderr.write(`\nnh-gate: ${sig}: stopping after killing the running leg; finished legs are kept\n`));
  try {
    return await series(o, deps, top, sha, interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}

async function series(o: CrossCommitOptions, deps: GateDeps, top: string, sha: { A: string; B: string }, signal: AbortSignal): Promise<SeriesOutcome> {
  const { inputs } = o;
  const gate = inputs.gate?.gate ?? null;
  const h = gate?.hypothesis ?? null;
  const metric = h?.metric ?? 'perOutputToken';
  const repeats = o.repeats ?? gate?.repeats ?? 4;
  const silicon = await deps.detectSilicon();
  const arch = checkArch(o.arch ?? gate?.arch, silicon, inputs.recipe);
  if (!arch.ok && arch.usage) throw new NhGateError('USAGE', arch.message, 'pass --arch cpu, 90, 90a, 121a, 110 …');
  const name = `${gate?.name ?? 'ab'}-${sha.A.slice(0, 8)}-vs-${sha.B.slice(0, 8)}`;
  const runDir = createRunDir(o.resultsBase, name, deps.now());
  const label = `two binaries: base ${o.base} = ${sha.A}, head ${o.head} = ${sha.B}`;
  const r: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'ab', argv: o.argv, runDir,
    startedAt: deps.now().toISOString(), finishedAt: null, status: 'running',
    recipe: { name: inputs.recipe.name, path: inputs.recipePath }, golden: { name: inputs.golden.name, revision: inputs.golden.checkpoint.revision, path: inputs.goldenPath },
    gate: inputs.gate ? { name: inputs.gate.gate.name, path: inputs.gate.path, sha256: inputs.gate.sha256, hypothesis: h } : null,
    arch: arch.arch, silicon, build: null, plan: null, legs: [], quantities: {}, comparison: null,
    verdict: { word: 'VOID', exitClass: 'void', reasons: ['not finished'] }, notes: [label],
  };
  const plots: PlotInputs = { timelines: [], ab: { title: `cross-commit: per-token times per leg (A=base ${sha.A.slice(0, 8)}, B=head ${sha.B.slice(0, 8)})`, legs: [] } };
  const finish = async (status: RunResult['status']): Promise<SeriesOutcome> => {
    r.status = status;
    r.finishedAt = deps.now().toISOString();
    await saveRun(r, plots, deps.live);
    appendLedger(o.resultsBase, r);
    return { result: r, exitClass: r.verdict.exitClass };
  };
  if (!arch.ok) {
    r.verdict = { word: 'VOID', exitClass: 'void', reasons: [`NO_SUCH_SILICON: ${arch.message}`] };
    return finish('complete');
  }
  const originNs = monoNs();
  const lock = acquireLock(lockPath(), `nh-gate ab --base ${o.base} --head ${o.head}`);
  try {
    const ctx: Partial<Record<'A' | 'B', LegContext>> = {};
    const binaries: Record<'A' | 'B', { rev: string; commit: string; tree: string; binarySha256: string | null }> = {} as never;
    for (const side of ['A', 'B'] as const) {
      const tree = await ensureWorktree(deps.exec, top, sha[side], join(o.resultsBase, 'worktrees'));
      const root = rootInTree(top, inputs.root, tree);
      deps.progress(`[nh-gate] build ${side === 'A' ? 'base' : 'head'} ${sha[side].slice(0, 12)} in ${tree}`);
      const b = await buildRecipe({ recipe: inputs.recipe, root, arch: arch.arch, jobs: o.jobs, exec: deps.exec, parseFeatures: featureParserFor(inputs.profile), isTty: deps.isTty, signal });
      writeAtomic(join(runDir, `build-${side}.log`), [...(b.configure?.log ?? []), ...(b.build?.log ?? [])].join('\n') + '\n');
      const { configure: _c, build: _b, probes: _p, ...rest } = b;
      if (side === 'B') r.build = { ...rest, logFile: 'build-B.log' };
      if (b.verdict !== 'BUILT') {
        r.verdict = { word: 'VOID', exitClass: 'void', reasons: [`${b.voidReason ?? 'BUILD_FAILED'}: the ${side === 'A' ? 'base' : 'head'} commit ${sha[side]} did not build: ${b.message}`] };
        return await finish('complete');
      }
      const vars = { ...buildVars(inputs.recipe, root, arch.arch, o.jobs), ...(o.checkpoint ? { checkpoint: o.checkpoint } : {}) };
      for (const [i, argvT] of inputs.recipe.prepare.entries()) {
        const run = await deps.exec.run({ argv: expandArgv(argvT, vars, `recipe.prepare[${i}]`), cwd: root, timeoutS: 600 }, { signal });
        if (!exitedCleanly(run)) {
          r.verdict = { word: 'VOID', exitClass: 'void', reasons: [`prepare step ${i + 1} of the ${side === 'A' ? 'base' : 'head'} tree failed: ${describeEnd(run)}; ${lastLines(run, 5).join(' | ')}`] };
          return await finish('complete');
        }
      }
      const binaryPath = expandString(inputs.recipe.driver.binary, vars, 'recipe.driver.binary');
      binaries[side] = { rev: side === 'A' ? o.base : o.head, commit: sha[side], tree, binarySha256: b.outputs.find((x) => x.path === binaryPath)?.sha256 ?? null };
      ctx[side] = {
        deps, recipe: inputs.recipe, profile: inputs.profile, golden: inputs.golden, goldenPath: inputs.goldenPath, vars, binaryPath, runDir,
        originNs, silicon, sampleGpu: silicon.kind === 'gpu' && arch.arch !== 'cpu', deviceIndex: 0,
        timeoutS: o.timeoutS ?? inputs.recipe.driver.timeoutS, signal,
      };
    }
    const env = baseEnv(inputs.recipe, gate);
    const count = { A: 0, B: 0 };
    const plan: PlannedLeg[] = abbaOrder(repeats).map((a, index) => ({ index, arm: a, label: `${a}${++count[a]} ${a === 'A' ? 'base' : 'head'} ${sha[a].slice(0, 8)}`, env, mode: o.mode }));
    r.plan = { text: [`cross-commit A/B (${label}), order abba, ${plan.length} legs`, ...plan.map((l) => `  leg ${l.index + 1}: ${l.label}`)].join('\n'), order: 'abba', seed: null, legs: plan.length };
    const same = binaries.A.binarySha256 !== null && binaries.A.binarySha256 === binaries.B.binarySha256;
    if (same) r.notes.push(`the two commits built byte-identical binaries (sha256 ${binaries.A.binarySha256}): any difference below is noise`);
    const outcomes: LegOutcome[] = [];
    const finalize = (): void => {
      const legs = outcomes.map((x) => x.record);
      const c = compareArms({ legs, metric, armFlagValues: { A: 'off', B: 'on' }, hypothesis: h, seed: o.seed });
      r.quantities = { ratio: c.ratio };
      r.comparison = { twoBinaries: true, base: binaries.A, head: binaries.B, metric: c.metric, numerator: c.numerator, ci: c.ci, spreads: c.spreads, counterDiff: c.counterDiff, hypothesis: c.verdict, arms: { A: 'base', B: 'head' } };
      r.notes = [label, ...(same ? [r.notes.find((n) => n.startsWith('the two commits built'))!] : []), ...comparisonNotes(c).filter((n) => !n.startsWith('the arms did NOT differ'))];
      // The one-binary rule belongs to the flag A/B; here two binaries are the declared point of the run.
      const v = abVerdict({ ...r, legs: legs.map((l) => ({ ...l, binarySha256: 'two binaries' })) }, c, h?.refutationFails ?? true, plan.length, gate !== null);
      r.verdict = { ...v, reasons: [label, ...v.reasons] };
    };
    for (const planned of plan) {
      if (signal.aborted) break;
      const out = await runLeg(ctx[planned.arm as 'A' | 'B']!, planned);
      if (out.record.process.interrupted) break;
      outcomes.push(out);
      r.legs = outcomes.map((x) => x.record);
      plots.ab!.legs.push(out.abPoint);
      finalize();
      await saveRun(r, plots, deps.live);
    }
    finalize();
    if (signal.aborted) r.verdict = { word: 'VOID', exitClass: 'void', reasons: [`PARTIAL: interrupted after ${outcomes.length} of ${plan.length} leg(s)`, ...r.verdict.reasons] };
    return await finish(signal.aborted ? 'interrupted' : 'complete');
  } finally {
    lock.release();
  }
}

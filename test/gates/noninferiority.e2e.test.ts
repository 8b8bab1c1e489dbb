import { describe, expect, it, beforeAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { execa } from 'execa';
import { join } from 'node:path';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';
import { isolatedResults } from '../helpers/legLogs.js';
import { loadInputs } from '../../src/gates/setup.js';
import { runAb } from '../../src/gates/ab/run.js';
import { realDeps } from '../../src/gates/deps.js';
import { runLines } from '../../src/report/text.js';
import type { AbComparison } from '../../src/results/comparison.js';
import type { RunResult } from '../../src/results/types.js';

// Non-inferiority and equivalence on the reference engine (cpu build), under the shipped gates. The metric is
// the median decode step on the engine's event clock (interTokenLatency): a preemption of the engine on this
// shared host lengthens one gap, not the median, so a 10% bound is decidable here where the per-token mean
// over a 30 ms window is not (measured: legs of one arm 0.23-0.79 ms/token, median step 38-46 µs).

const gate = (name: string) => join(repoRoot, 'gates', 'nh-ref', name);
const ab = (c: unknown): AbComparison => c as AbComparison;

describe('non-inferiority and equivalence on the reference engine', () => {
  // A results dir per run (its own GPU lock); after the file, analyze re-judges every leg log they hold.
  const isolate = isolatedResults();
  beforeAll(async () => {
    await ensureEngineBuilt();
  }, 600_000);

  it('null arms (both MAMBA_DECODE_STEP=1): "B is at most 50% slower than A" is never REFUTED; the word, the exit and the interval agree', async () => {
    // A null control holds the core constant: on a shared VM a leg on cpu0 steps in ~63 µs and one on cpu1
    // in ~39 µs (measured, pinned runs of this gate), so unpinned legs of equal arms split 1.6× by placement.
    // Every leg of both arms runs on one CPU (taskset, util-linux). How wide the interval of equal arms is, is
    // the host's business, not the judge's: CI's 2 shared cores, with other files running, gave [0.67, 1.53] for
    // 24 legs (a 50% margin straddled), a quiet host [0.97, 1.04]. So the test pins what must hold on ANY host:
    // equal arms are never refuted, SUPPORTED exactly when the interval lies under the bound (exit 0, "the arms did
    // NOT differ"), UNRESOLVED exactly when it straddles (exit 3). The pure judge's SUPPORTED and UNRESOLVED paths
    // are pinned by test/stats and test/gates unit tests on fixed figures.
    const dir = isolate();
    const g = JSON.parse(readFileSync(gate('null-noninferiority-ab.json'), 'utf8'));
    g.criteria.metrics[0].atMostPct = 50;
    writeFileSync(join(dir, 'null-ni.json'), JSON.stringify(g));
    const cpu = String(availableParallelism() - 1);
    const r = await execa('taskset', ['-c', cpu, process.execPath, join(repoRoot, 'bin', 'nh-gate.js'), 'ab', '--gate', join(dir, 'null-ni.json'), '--json', '--results-dir', dir], { reject: false, env: { NH_GATE_LOCK: join(dir, 'gpu.lock') } });
    const result = JSON.parse(r.stdout) as RunResult;
    const m = ab(result.comparison).metrics[0]!;
    const why = `${m.text}\n${r.stderr.slice(-2000)}`;
    expect(m, why).toMatchObject({ test: 'non-inferiority', subject: 'B', reference: 'A', bound: 'B/A ≤ 1.5000' });
    expect(m.interval!.lo, why).toBeLessThanOrEqual(1.5);
    expect(['SUPPORTED', 'UNRESOLVED'], why).toContain(m.word);
    const claim = 'non-inferiority of interTokenLatency: arm B (MAMBA_DECODE_STEP=on) at most 50% higher than arm A (MAMBA_DECODE_STEP=on): B/A ≤ 1.5000';
    if (m.interval!.hi <= 1.5) {
      expect(m.word, why).toBe('SUPPORTED');
      expect(r.exitCode, why).toBe(0);
      expect(result.verdict).toMatchObject({ word: 'SUPPORTED', exitClass: 'passed', claim });
      expect(runLines(result).join('\n')).toMatch(/the arms did NOT differ/);
    } else {
      expect(m.word, why).toBe('UNRESOLVED');
      expect(r.exitCode, why).toBe(3);
      expect(result.verdict).toMatchObject({ word: 'UNRESOLVED', claim });
      expect(m.text).toMatch(/straddles the criterion B\/A ≤ 1\.5000/);
    }
  });

  it('"MAMBA_DECODE_STEP=0 is at most 5% slower than =1" is REFUTED (worse by more than the margin), fixed and sequential', async () => {
    const inputs = loadInputs({ command: 'ab', gate: gate('decode-step-noninferiority-ab.json') });
    const out = await runAb({ argv: [], inputs, jobs: 2, resultsBase: isolate() }, await realDeps());
    const m = ab(out.result.comparison).metrics[0]!;
    expect(m).toMatchObject({ test: 'non-inferiority', subject: 'A', reference: 'B', word: 'REFUTED', refutedAs: 'worse' });
    expect(m.interval!.lo).toBeGreaterThan(1.05);
    // refutationFails false: the refutation is this gate's passing result, and every output says REFUTED
    expect(out.result.verdict).toMatchObject({ word: 'REFUTED', exitClass: 'passed' });
    expect(m.text).toMatch(/lies entirely outside the criterion A\/B ≤ 1\.0500: arm A is higher than arm B by more than the margin/);
    const seq = await runAb({ argv: [], inputs, jobs: 2, resultsBase: isolate(), stop: 'sequential' }, await realDeps());
    expect(seq.result.verdict.word).toBe('REFUTED');
    expect(ab(seq.result.comparison)).toMatchObject({ form: 'sequential', decidedAtBlock: expect.any(Number) });
    expect(seq.result.legs.length).toBeLessThan(16);
  });

  it('equivalence: the decode-step arms are not within ±10% of each other (REFUTED, outside the band)', async () => {
    const dir = isolate();
    const g = JSON.parse(readFileSync(gate('null-equivalence-ab.json'), 'utf8'));
    delete g.arms;
    g.name = 'decode-step-equivalence';
    g.repeats = 3;
    g.criteria.refutationFails = false;
    writeFileSync(join(dir, 'eq.json'), JSON.stringify(g));
    const out = await runAb({ argv: [], inputs: loadInputs({ command: 'ab', gate: join(dir, 'eq.json') }), jobs: 2, resultsBase: dir }, await realDeps());
    const m = ab(out.result.comparison).metrics[0]!;
    expect(m).toMatchObject({ test: 'equivalence', bound: '0.9000 ≤ B/A ≤ 1.1000', word: 'REFUTED', refutedAs: 'outside' });
    expect(m.text).toMatch(/the arms differ by more than the margin \(arm B is lower\)/);
  });
});

import { describe, expect, it } from 'vitest';
import { renderJunit } from '../../src/report/junit.js';
import { JUNIT_OUTCOME, legClass, verdictLine } from '../../src/verdict/record.js';
import { VERDICT_CLASS, VERDICT_WORDS, hypothesisClass, type ExitClass, type HypothesisWord } from '../../src/verdict/words.js';
import { reason } from '../../src/verdict/reasons.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../../src/results/types.js';
import { exitCodeFor } from '../../src/cli/exit.js';
import { leg } from '../gates/fixtures.js';

// JUnit says what the exit code says: for every verdict word (and a REFUTED either way the gate registers
// refutationFails), the run's testcase is a failure exactly when the exit class is a failed gate, an error
// when there was nothing valid to judge, and passes only when the exit code is 0.

function result(word: RunResult['verdict']['word'], exitClass: ExitClass): RunResult {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: 'x' }, command: 'ab', argv: [], runDir: '/tmp/x',
    startedAt: 't', finishedAt: 't', status: 'complete', recipe: null, golden: null, gate: null, arch: 'cpu', silicon: null, build: null, plan: null,
    legs: [], quantities: {}, comparison: null, verdict: { word, exitClass, reasons: [reason('CRITERION', 'why <&>')] }, notes: [],
  };
}

const counts = (x: string) => ({ failures: Number(/failures="(\d+)"/.exec(x)![1]), errors: Number(/errors="(\d+)"/.exec(x)![1]) });

const cases: Array<[RunResult['verdict']['word'], ExitClass]> = [
  ...VERDICT_WORDS.map((w) => [w, VERDICT_CLASS[w]] as [RunResult['verdict']['word'], ExitClass]),
  ...(['SUPPORTED', 'REFUTED', 'UNRESOLVED'] as HypothesisWord[]).flatMap((w) => [true, false].map((f) => [w, hypothesisClass(w, f)] as [HypothesisWord, ExitClass])),
  // A VOID from an engine that refused its input is a usage error (exit 2): an error, never a pass.
  ['VOID', 'usage'],
];

describe('junit.xml follows the exit class of the one verdict value', () => {
  it.each(cases)('%s (%s)', (word, cls) => {
    const x = renderJunit(result(word, cls));
    const c = counts(x);
    const exit = exitCodeFor(cls);
    expect(c.failures).toBe(cls === 'failed' || cls === 'short' ? 1 : 0);
    expect(c.errors).toBe(['void', 'usage', 'internal'].includes(cls) ? 1 : 0);
    // passes (no failure, no error) exactly when the exit code is 0
    expect(c.failures + c.errors === 0).toBe(exit === 0);
    if (c.failures + c.errors) expect(x).toContain(`type="${word}" message="${verdictLine({ word, exitClass: cls, reasons: [reason('CRITERION', 'why &lt;&amp;&gt;')] })}"`);
  });

  it('the outcome table covers every exit class, and a REFUTED that does not fail passes', () => {
    expect(Object.keys(JUNIT_OUTCOME).sort()).toEqual(['failed', 'internal', 'passed', 'short', 'usage', 'void']);
    expect(counts(renderJunit(result('REFUTED', hypothesisClass('REFUTED', false))))).toEqual({ failures: 0, errors: 0 });
    expect(counts(renderJunit(result('REFUTED', hypothesisClass('REFUTED', true))))).toEqual({ failures: 1, errors: 0 });
  });

  it('a leg testcase follows its own class too (a refused input is an error, a wrong token a failure)', () => {
    const r = result('DIVERGENCE', 'failed');
    const refusedInput = { ...leg(1, 'B', null, { verdict: 'VOID' }), process: { ...leg(1, 'B', null).process, exitCode: 2 }, voidReasons: [{ code: 'ENGINE_REFUSED' as const, message: 'bad' }] };
    r.legs = [leg(0, 'A', 1), refusedInput, leg(2, 'B', 1, { verdict: 'DIVERGENCE' }), leg(3, 'A', 1, { verdict: 'SHORT' })];
    expect(legClass(refusedInput)).toBe('usage');
    expect(counts(renderJunit(r))).toEqual({ failures: 3, errors: 1 });
  });

  it('the verdict line carries the claim it decided and every reason as CODE: message', () => {
    expect(verdictLine({ word: 'SUPPORTED', exitClass: 'passed', reasons: [reason('CRITERION', 'a'), reason('DEVIATION', 'b')], claim: 'non-inferiority of x' })).toBe('SUPPORTED (non-inferiority of x) — CRITERION: a; DEVIATION: b');
    expect(verdictLine({ word: 'MEASURED', exitClass: 'passed', reasons: [] })).toBe('MEASURED');
  });
});

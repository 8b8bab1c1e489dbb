// Exit 1 is DIVERGENCE *or failure* (vllm.cpp's nemotron-h-gen: "engine load FAILED", "prompt N FAILED" and
// DIVERGENCE all return 1): a leg's failure rule and the cross-check, on the engine's real line shapes.
import { describe, expect, it } from 'vitest';
import type { ProcessRun } from '../../src/exec/types.js';
import { engineFailure, EXIT_1_WITHOUT_VERDICT } from '../../src/gates/leg/failure.js';
import { crossCheck } from '../../src/gates/leg/crosscheck.js';
import { judgeFromRows } from '../../src/gates/leg/tokens.js';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NEMOTRON_H } from '../../src/profiles/builtin.js';
import { GoldenSchema } from '../../src/config/golden.js';

const golden = GoldenSchema.parse({
  schemaVersion: 1, name: 'g', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'r' },
  sampling: { kind: 'greedy', maxNewTokens: 2 }, capturedAt: 'now', capturedHost: 'h', engineConfigRecorded: 'yes',
  nearTie: { licensed: false, maxMarginNats: 0 }, determinism: { runs: 1, multiValuedCells: 0 },
  prompts: [{ id: 0, promptTokens: [1, 2, 3, 4, 5], tokens: [7, 8] }],
});
const HEAD = ['[nemotron-h] libvllm 0.0.3 (ABI 21, header 21)', '[nemotron-h] model dir: /m'];
const LOADED = '[nemotron-h] engine loaded in 254.5s';
const ROW = '[nemotron-h] prompt 0: prompt_tokens=5 generated=2 golden_width=2 compared=2 matched=2 wall=1.00s';
const MATCH = '[nemotron-h] TOKEN MATCH: 2/2 over 1 prompt(s) (full rows=1, short rows=0)';

function leg(lines: string[], exitCode: number | null) {
  const r = createDriverReader(NEMOTRON_H);
  lines.forEach((l) => r.push(l));
  const run: ProcessRun = {
    argv: ['nemotron-h-gen'], pid: 1, startNs: 0n, endNs: 1n, exitCode, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false,
    lines: lines.map((text, i) => ({ tNs: BigInt(i), stream: 'stderr' as const, text })),
  };
  return { run, report: r.report() };
}

describe('exit 1 without a verdict line is a failure, never a DIVERGENCE', () => {
  it('before the load line: LOAD_FAILED, naming the last line', () => {
    const { run, report } = leg([...HEAD, '[nemotron-h] engine load FAILED: no such file'], 1);
    const f = engineFailure(run, report, false);
    expect(f?.code).toBe('LOAD_FAILED');
    expect(f?.message).toBe('the engine exited 1 before its load-complete line and compared nothing: a load failure, not a DIVERGENCE (its last line: [stderr] [nemotron-h] engine load FAILED: no such file)');
    // A load event in the events file counts as loaded.
    expect(engineFailure(run, report, true)?.code).toBe('CRASHED');
    const silent = leg([], 1);
    expect(engineFailure(silent.run, silent.report, false)?.message).toBe('the engine exited 1 before its load-complete line and compared nothing: a load failure, not a DIVERGENCE');
  });

  it('after the load line, before TOKEN MATCH (a prompt FAILED): CRASHED', () => {
    const { run, report } = leg([...HEAD, LOADED, '[nemotron-h] prompt 0 FAILED: out of memory'], 1);
    expect(engineFailure(run, report, false)).toMatchObject({ code: 'CRASHED', message: expect.stringMatching(/^the engine exited 1 after loading without a TOKEN MATCH or verdict line: a failure \(a prompt FAILED\), not a DIVERGENCE/) });
  });

  it('exit 1 beside its DIVERGENCE line, or after its TOKEN MATCH, and every other exit code, is not a failure by this rule', () => {
    const div = leg([...HEAD, LOADED, ROW, MATCH, '[nemotron-h] DIVERGENCE'], 1);
    expect(engineFailure(div.run, div.report, false)).toBeNull();
    const verdictOnly = leg([...HEAD, LOADED, '[nemotron-h] DIVERGENCE'], 1);
    expect(engineFailure(verdictOnly.run, verdictOnly.report, false)).toBeNull();
    const afterMatch = leg([...HEAD, LOADED, ROW, MATCH], 1);
    expect(engineFailure(afterMatch.run, afterMatch.report, false)).toBeNull();
    for (const code of [0, 2, 3, 4, null]) {
      const l = leg([...HEAD], code);
      expect(engineFailure(l.run, l.report, false), String(code)).toBeNull();
    }
  });

  it('the cross-check reads exit 1 with no verdict line as FAILED: it agrees with a void harness and never says DIVERGENCE', () => {
    const { report } = leg([...HEAD, '[nemotron-h] engine load FAILED: x'], 1);
    const void0 = judgeFromRows(golden, 'decode', []);
    expect(void0.word).toBe('VOID');
    const c = crossCheck(void0, report, 1, 0);
    expect(c).toMatchObject({ agree: true, engineWord: null, engineExit: 1 });
    const pass = leg([...HEAD, LOADED, ROW, MATCH], 1);
    const strict = judgeFromRows(golden, 'decode', pass.report.prompts);
    const d = crossCheck(strict, pass.report, 1, 0);
    expect(d.agree).toBe(false);
    expect(EXIT_1_WITHOUT_VERDICT).toBe('FAILED');
    expect(d.explanation).toContain(`the engine said FAILED, the harness ${strict.word}`);
    expect(d.explanation).not.toContain('DIVERGENCE');
    // With its DIVERGENCE line, exit 1 is the engine's DIVERGENCE claim, cross-checked as before.
    const div = leg([...HEAD, LOADED, ROW, MATCH, '[nemotron-h] DIVERGENCE'], 1);
    expect(crossCheck(strict, div.report, 1, 0).explanation).toContain('the engine said DIVERGENCE, the harness STRICT PASS');
  });
});

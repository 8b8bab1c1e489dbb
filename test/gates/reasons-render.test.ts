// Every reason a verdict can carry, through every renderer: each prints as `CODE: message` (formatReason,
// the one way a reason is printed), and no object ever prints as "[object Object]".
import { describe, expect, it } from 'vitest';
import { judgeFromRows } from '../../src/gates/leg/tokens.js';
import { renderJunit } from '../../src/report/junit.js';
import { renderSummaryMd } from '../../src/report/summary.js';
import { legLines, runLines } from '../../src/report/text.js';
import { RESULT_SCHEMA_VERSION, type LegRecord, type RunResult } from '../../src/results/types.js';
import { VOID_CODES, formatReason, reason, type VoidCode } from '../../src/verdict/reasons.js';
import { MutationSchema } from '../../src/config/mutations.js';
import type { MutantResult, VoidReason } from '../../src/mutate/types.js';
import { renderTable } from '../../src/mutate/report/table.js';
import { toJunit } from '../../src/mutate/report/junit.js';
import { toHtml } from '../../src/mutate/report/html.js';
import { golden, leg } from './fixtures.js';

const msg = (code: string): string => `why ${code.toLowerCase()}`;

// A void leg whose tokens and void reasons carry every code.
function voidLeg(index: number, codes: readonly VoidCode[]): LegRecord {
  const tokens = judgeFromRows(golden(), 'decode', []);
  tokens.reasons = codes.map((c) => reason(c, msg(c)));
  return { ...leg(index, 'A', null, { verdict: 'VOID' }), tokens, voidReasons: codes.map((c) => reason(c, msg(c))) };
}

function run(legs: LegRecord[]): RunResult {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'a3', argv: [], runDir: '/tmp/x',
    startedAt: '2026-12-01T00:00:00.000Z', finishedAt: '2026-12-01T00:01:00.000Z', status: 'complete', recipe: { name: 'r', path: null },
    golden: null, gate: null, arch: 'cpu', silicon: null, build: null, plan: null, legs, quantities: {}, comparison: null,
    verdict: { word: 'VOID', exitClass: 'void', reasons: legs.flatMap((l) => l.voidReasons) }, notes: [],
  };
}

// Every mutate VOID reason, listed so that a new one fails to compile until it is rendered here too.
const MUTATE_VOIDS: Record<VoidReason, true> = {
  STALE: true, AMBIGUOUS: true, UNVIABLE: true, NOT_REBUILT: true, NOT_RESTORED: true, NOT_REPRODUCIBLE: true, NO_GPU_ARCH: true,
  GPU_SKIPPED: true, NO_CASES: true, BASELINE_RED: true, SELF_TEST_FAILED: true, NO_SUITE: true, INTERRUPTED: true, TREE_BROKEN: true,
  SLURM_CANCELLED: true, SLURM_TIMEOUT: true, SLURM_NODE_LOST: true, SLURM_PREEMPTED: true, SLURM_OUT_OF_MEMORY: true, SLURM_LAUNCH_FAILED: true,
  SLURM_FAILED: true, SLURM_LOST: true, SLURM_REJECTED: true, NEVER_STARTED: true, RUN_DIR_UNREACHABLE: true, NO_SUCH_SILICON: true, NODE_LOCKED: true,
};

function mutantRow(code: VoidReason): MutantResult {
  const mutation = MutationSchema.parse({ id: `row-${code}`, file: 'e/k.cu', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught', device: true });
  return {
    id: mutation.id, mutation, span: null, tree: 0, compileExit: 0, errorCount: 0, binarySha: 'c'.repeat(64), suite: null, mustFailCaseFailed: null,
    restoreSha: 'b'.repeat(64), verdict: 'VOID', reason: code, detail: msg(code), expected: 'caught', matchesExpectation: false, exitClass: 'void', buildS: 1,
  };
}

describe('every reason shape renders as CODE: message, never [object Object]', () => {
  it('leg and run reasons (token reasons, void reasons, the run verdict) in text, summary.md and junit.xml', () => {
    const r = run([voidLeg(0, VOID_CODES.slice(0, 20)), voidLeg(1, VOID_CODES.slice(20))]);
    const text = runLines(r).join('\n');
    const outputs = { text, summary: renderSummaryMd(r, []), junit: renderJunit(r) };
    for (const [name, out] of Object.entries(outputs)) expect(out, name).not.toContain('[object Object]');
    for (const c of VOID_CODES) {
      // Once as a token reason, once as a void reason, once in the run's verdict line.
      expect(text.split(`${c}: ${msg(c)}`).length - 1, c).toBeGreaterThanOrEqual(3);
      expect(outputs.junit, c).toContain(`${c}: ${msg(c)}`);
    }
    const lines = legLines(r.legs[0]!);
    expect(lines).toContain(`  ${formatReason(reason('CRASHED', msg('CRASHED')))}`);
  });

  it('mutate rows with every VOID reason in the table, junit.xml and the HTML report', () => {
    const rows = (Object.keys(MUTATE_VOIDS) as VoidReason[]).map(mutantRow);
    // The table wraps its cells, so it is read for the one thing that cannot wrap into place.
    expect(renderTable(rows)).not.toContain('[object Object]');
    const outputs = { junit: toJunit(rows, 'r'), html: toHtml(rows, 't', []) };
    for (const [name, out] of Object.entries(outputs)) {
      expect(out, name).not.toContain('[object Object]');
      for (const r of rows) {
        expect(out, `${name}: ${r.reason}`).toMatch(new RegExp(`VOID ${r.reason}\\b`));
        expect(out, `${name}: ${r.reason}`).toContain(msg(r.reason!));
      }
    }
  });
});

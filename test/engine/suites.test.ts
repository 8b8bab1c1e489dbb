import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { ensureEngineBuilt } from '../helpers/engine.js';

// The doctest binary's summary lines (SPEC §4), read by field, never by position.
function summary(out: string): { cases: number; passed: number; failed: number; assertions: number; status: string } {
  const cases = /\[doctest\] test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed/.exec(out);
  const asserts = /\[doctest\] assertions:\s*(\d+)/.exec(out);
  const status = /\[doctest\] Status: (\w+)!/.exec(out);
  if (!cases || !asserts || !status) throw new Error(`no doctest summary in:\n${out.slice(-2000)}`);
  return { cases: Number(cases[1]), passed: Number(cases[2]), failed: Number(cases[3]), assertions: Number(asserts[1]), status: status[1]! };
}

describe('nh-ref-tests (doctest, real build)', () => {
  it('every case passes and the suite covers scan, routing, GQA, checkpoint and driver exit codes', async () => {
    const e = await ensureEngineBuilt();
    const run = await execa(e.tests, [], { reject: false, all: true });
    const s = summary(run.all ?? '');
    expect(run.exitCode).toBe(0);
    expect(s.status).toBe('SUCCESS');
    expect(s.failed).toBe(0);
    expect(s.cases).toBeGreaterThanOrEqual(20);
    const list = (await execa(e.tests, ['--list-test-cases'], { all: true })).all ?? '';
    for (const needle of ['chunk scan == single-step update at n_groups 4, heads per group 4', 'MoE routing: the correction bias',
      'GQA: query head h reads kv head', 'checkpoint refusals are named', 'driver: zero compared -> exit 3; short -> exit 4',
      'driver: one wrong token -> DIVERGENCE']) {
      expect(list).toContain(needle);
    }
  });

  it('the device cases take their skip path loudly here: a MESSAGE each and no assertions', async () => {
    const e = await ensureEngineBuilt();
    const device = await execa(e.tests, ['--test-case=device Mamba block*'], { reject: false, all: true });
    const out = device.all ?? '';
    expect(device.exitCode).toBe(0);
    expect(out.match(/SKIPPED device case: this build has no CUDA arm/g)).toHaveLength(3);
    expect(summary(out).assertions).toBe(0);
  });

  it('a filter that selects nothing is visible as zero cases (nh-gate refuses it, not a pass)', async () => {
    const e = await ensureEngineBuilt();
    const none = await execa(e.tests, ['--test-case=no such case'], { reject: false, all: true });
    expect(summary(none.all ?? '').cases).toBe(0);
  });
});

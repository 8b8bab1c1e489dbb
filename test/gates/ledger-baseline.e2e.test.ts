import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadInputs } from '../../src/gates/setup.js';
import { runA3 } from '../../src/gates/a3.js';
import { realDeps } from '../../src/gates/deps.js';
import { fakeRepo } from './fake.js';

// SPEC §7: an a3 baseline found in the ledger by silicon key, never a typed constant.
describe('a3 against the ledger baseline of its own silicon', () => {
  it('the first run has none (withheld by name); the next compares with it; other silicon is never used', async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.2' });
    const r = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
    r.ledgerBaseline = { quantity: 'perOutputToken' };
    writeFileSync(repo.recipePath, JSON.stringify(r));
    const base = mkdtempSync(join(tmpdir(), 'nh-ledger-base-'));
    process.env.NH_GATE_LOCK = join(base, 'gpu.lock');
    const run = async () => runA3({ argv: [], inputs: loadInputs({ command: 'a3', recipe: repo.recipePath }, repo.root), mode: 'decode', jobs: 1, resultsBase: base }, await realDeps());

    const first = await run();
    expect(first.result.quantities.perTokenVsLedger).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM', message: expect.stringMatching(/no earlier a3 of recipe fake on cpu:/) });
    const second = await run();
    const q = second.result.quantities.perTokenVsLedger!;
    expect(q).toMatchObject({ status: 'measured', unit: 'x' });
    const firstPt = first.result.legs[0]!.quantities.perOutputToken as { value: number };
    const secondPt = second.result.legs[0]!.quantities.perOutputToken as { value: number };
    if (q.status === 'measured') {
      expect(q.value).toBeCloseTo(secondPt.value / firstPt.value, 12);
      expect(String(q.terms.denominator!.label)).toContain(first.result.runDir);
    }

    // A ledger line from other silicon is never a baseline here.
    const ledger = join(base, 'ledger.jsonl');
    const lines = readFileSync(ledger, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    writeFileSync(ledger, lines.map((e) => JSON.stringify({ ...e, siliconKey: 'gpu:NVIDIA GB10|cc12.1' })).join('\n') + '\n');
    const third = await run();
    expect(third.result.quantities.perTokenVsLedger).toMatchObject({ status: 'withheld', reason: 'MISSING_TERM' });
  });
});

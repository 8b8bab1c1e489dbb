// scripts/gpu/mutate-device.sh's verdict (scripts/gpu/device-summary.mjs) over mutate documents in the shape
// `nh-gate mutate --json` writes: exit 0 only for device rows as the table expects with their restore proofs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { REPO } from '../mutate/helpers.js';

const BASE = 'b'.repeat(64);
const dir = mkdtempSync(join(tmpdir(), 'nh-devsum-'));
interface RowIn { id: string; verdict: string; reason?: string | null; restoreSha?: string | null; binarySha?: string | null; matches?: boolean; excluded?: boolean; device?: boolean; expected?: string }
const row = (r: RowIn) => ({
  id: r.id, verdict: r.verdict, reason: r.reason ?? null, detail: `detail of ${r.id}`, tree: 0, binarySha: r.binarySha === undefined ? 'c'.repeat(64) : r.binarySha,
  restoreSha: r.restoreSha === undefined ? BASE : r.restoreSha, matchesExpectation: r.matches ?? r.verdict === 'CAUGHT', expected: r.expected ?? 'caught',
  mutation: { suite: 'nh-ref-tests', device: r.device ?? true }, ...(r.excluded ? { excluded: true } : {}),
});
const doc = (rows: RowIn[], exitCode = 0) => ({ schemaVersion: 1, kind: 'mutate', exitCode, userTree: { unchanged: true }, baselines: [{ tree: 0, binarySha: { 'nh-ref-tests': BASE } }], rows: [row({ id: 'self', verdict: 'CAUGHT', device: false }), ...rows.map(row)] });

async function summary(d: unknown, mode: string, rc: number) {
  const f = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, typeof d === 'string' ? d : JSON.stringify(d));
  const r = await execa('node', [join(REPO, 'scripts/gpu/device-summary.mjs'), f, mode, String(rc)], { reject: false });
  return { code: r.exitCode, out: r.stdout, last: r.stdout.trim().split('\n').at(-1) };
}

describe('device-summary (the last line and exit code of mutate-device.sh)', () => {
  it('every device row CAUGHT as expected with its restore proof: exit 0; the self-test is not a device row', async () => {
    const s = await summary(doc([{ id: 'd1', verdict: 'CAUGHT' }, { id: 'd2', verdict: 'CAUGHT' }]), 'table', 0);
    expect(s.last).toBe('device mutants: 2 judged, 2 CAUGHT, 0 SURVIVED, 0 VOID');
    expect(s.out).toContain(`d1: CAUGHT — restore proven (${BASE.slice(0, 12)}); binary changed`);
    expect(s.code).toBe(0);
  });

  it('a catch whose restore did not rebuild the baseline, or a row the table did not expect, fails (exit 1)', async () => {
    const lost = await summary(doc([{ id: 'd1', verdict: 'CAUGHT', restoreSha: 'e'.repeat(64) }]), 'table', 0);
    expect(lost.out).toContain('not proven: d1: CAUGHT without its restore proof');
    expect(lost.code).toBe(1);
    const surv = await summary(doc([{ id: 'd1', verdict: 'CAUGHT' }, { id: 'd2', verdict: 'SURVIVED', matches: false }], 1), 'table', 1);
    expect(surv.last).toBe('device mutants: 2 judged, 1 CAUGHT, 1 SURVIVED, 0 VOID');
    expect(surv.out).toContain('not proven: d2: SURVIVED, the table expects caught');
    expect(surv.code).toBe(1);
  });

  it('rows VOID for reproducibility, a skipped GPU case or arch cpu prove nothing: exit 3 when nothing was judged', async () => {
    for (const reason of ['NOT_REPRODUCIBLE', 'NOT_RESTORED', 'GPU_SKIPPED', 'NO_GPU_ARCH']) {
      const s = await summary(doc([{ id: 'd1', verdict: 'VOID', reason, matches: false }], 3), 'table', 3);
      expect(s.out).toContain(`not proven: d1: VOID ${reason}: proves nothing about the device code`);
      expect(s.last).toBe('device mutants: 1 judged, 0 CAUGHT, 0 SURVIVED, 1 VOID');
      expect(s.code).toBe(3);
    }
  });

  it('in-diff: CAUGHT and SURVIVED with proofs and excluded rows pass; a VOID that is not excluded fails', async () => {
    const rows: RowIn[] = [{ id: 'g1', verdict: 'CAUGHT' }, { id: 'g2', verdict: 'SURVIVED', matches: false }, { id: 'g3', verdict: 'VOID', reason: 'NOT_REBUILT', binarySha: BASE, excluded: true }];
    const ok = await summary(doc(rows, 1), 'in-diff', 1);
    expect(ok.last).toBe('device mutants: 3 judged, 1 CAUGHT, 1 SURVIVED, 1 VOID');
    expect(ok.out).toContain('g3: VOID NOT_REBUILT — restore proven');
    expect(ok.out).toContain('binary unchanged');
    expect(ok.code).toBe(0);
    const bad = await summary(doc([...rows, { id: 'g4', verdict: 'VOID', reason: 'NO_CASES' }], 3), 'in-diff', 3);
    expect(bad.out).toContain('not proven: g4: VOID NO_CASES');
    expect(bad.code).toBe(1);
  });

  it('no document, an error document, or no device row is never a pass', async () => {
    expect((await summary('not json', 'table', 70)).code).toBe(3);
    const err = await summary({ schemaVersion: 1, ok: false, error: { code: 'MISSING_PREREQUISITE', message: 'doctest' }, exitCode: 2 }, 'table', 2);
    expect(err.out).toContain('mutate did not run: MISSING_PREREQUISITE: doctest');
    expect(err.code).toBe(2);
    expect((await summary(doc([]), 'table', 0)).code).toBe(3);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';
import { isolatedResults } from '../helpers/legLogs.js';

// Issue 24: a new user ran `a3` twice and a gate-less flag A/B, then `history`. Every gate-less run landed in
// one `(no gate)` series, so the A/B's slow arm was fitted after the a3 points and read as a regression of
// them (+152.81%, exit 1), while a plain `history` after the a3 runs alone said NOT MEASURED (exit 3).
const bin = resolve(repoRoot, 'bin', 'nh-gate.js');
const isolate = isolatedResults();

async function nh(dir: string, ...args: string[]): Promise<{ exitCode: number; stdout: string; all: string }> {
  const r = await execa('node', [bin, ...args, '--results-dir', dir], { cwd: repoRoot, reject: false, all: true });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, all: r.all ?? '' };
}

describe('history after a new user\'s first runs', () => {
  beforeAll(async () => {
    await ensureEngineBuilt();
  }, 600_000);

  it('two a3 runs and a gate-less A/B are separate series, and nothing is a regression', async () => {
    const dir = isolate();
    for (let i = 0; i < 2; i++) expect((await nh(dir, 'a3')).exitCode).toBe(0);
    const after = await nh(dir, 'history', '--no-plot', '--json');
    const doc = JSON.parse(after.stdout);
    // After a3 runs alone: their own figures, one series each, judged (not NOT MEASURED).
    expect(doc.verdict.word, after.all).toBe('NO REGRESSION');
    expect(new Set(doc.series.map((s: { label: string }) => s.label))).toEqual(new Set(['a3 nh-ref, golden nh-ref-tiny, arms single, mode decode']));
    // Each a3 line's measured per-token figure is a point (a refused one, e.g. under CPU contention, is not).
    const lines = readFileSync(join(dir, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const measured = lines.filter((l) => l.figures['leg1.perOutputToken']).length;
    expect(doc.series.find((s: { metric: string }) => s.metric === 'leg1.perOutputToken')?.points ?? 0, JSON.stringify(lines)).toBe(measured);

    const ab = await nh(dir, 'ab', '--flag', 'MAMBA_DECODE_STEP');
    expect(ab.exitCode, ab.all).toBe(0);
    const perLeg = await nh(dir, 'history', '--no-plot', '--json', '--metric', 'leg1.perOutputToken');
    const d2 = JSON.parse(perLeg.stdout);
    // A refused figure (a loaded host can refuse one) is no point: count what the ledger measured.
    const ledger = readFileSync(join(dir, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const measuredBy = (command: string): number => ledger.filter((l) => l.command === command && l.figures['leg1.perOutputToken']).length;
    const expected = [
      ['a3 nh-ref, golden nh-ref-tiny, arms single, mode decode', measuredBy('a3')],
      ['ab nh-ref, golden nh-ref-tiny, arms A NH_REF_MAMBA_DECODE_STEP=0 | B NH_REF_MAMBA_DECODE_STEP=1, mode decode', measuredBy('ab')],
    ].filter(([, n]) => n);
    expect(expected.length, JSON.stringify(ledger)).toBe(2);
    expect(d2.series.map((s: { label: string; points: number }) => [s.label, s.points]), perLeg.all).toEqual(expected);
    expect(d2.verdict.word).toBe('NO REGRESSION');
    expect(perLeg.exitCode).toBe(0);

    // The plain view: the a3's own figures and the A/B's ratio, each under what ran.
    const plain = await nh(dir, 'history', '--no-plot');
    expect(plain.exitCode, plain.all).toBe(0);
    expect(plain.stdout).toMatch(/^a3 nh-ref, golden nh-ref-tiny, arms single, mode decode\n(?: {2,}.*\n)*? {2}leg1\.perOutputToken \(s\) on .*: [12] point\(s\)/m);
    expect(plain.stdout).toMatch(/^ab nh-ref, golden nh-ref-tiny, arms A NH_REF_MAMBA_DECODE_STEP=0 \| B NH_REF_MAMBA_DECODE_STEP=1, mode decode\n {2}ratio \(x\) on .*: 1 point\(s\)/m);
    expect(plain.stdout).not.toMatch(/no gate|REGRESSION:/);
  }, 600_000);
});

import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { parseLedger } from '../../src/results/ledgerRead.js';
import { historyReport } from '../../src/history/report.js';
import { fitSteps, dispersionOf } from '../../src/stats/changepoint.js';
import { syntheticLedger, ledgerText } from '../../src/history/synthetic.js';

const bin = resolve(import.meta.dirname, '../../bin/nh-gate.js');
const S = (over: Partial<Parameters<typeof syntheticLedger>[1][number]> = {}) => ({ gate: 'g', siliconKey: 'gpu:H200|cc9.0', base: 1, relSd: 0.01, steps: [], withInterval: true, ...over });

describe('weighted step fit', () => {
  it('finds one planted step where it was planted, and none in flat noise', () => {
    const flat = Array.from({ length: 200 }, (_, i) => ({ value: 1 + 0.01 * Math.sin(i * 12.9898), se: 0.01 }));
    expect(fitSteps(flat).changePoints).toEqual([]);
    const step = flat.map((p, i) => ({ ...p, value: p.value * (i >= 120 ? 1.05 : 1) }));
    const f = fitSteps(step);
    expect(f.changePoints).toEqual([120]);
    expect(f.segments[1]!.mean / f.segments[0]!.mean).toBeCloseTo(1.05, 2);
  });

  it('weights each point by its interval: a wild point with a wide interval makes no step', () => {
    const xs = Array.from({ length: 60 }, (_, i) => ({ value: 1 + 0.001 * ((i * 7) % 5), se: 0.002 }));
    xs[59] = { value: 1.5, se: 1 };
    expect(fitSteps(xs).changePoints).toEqual([]);
    xs[59] = { value: 1.5, se: 0.002 };
    expect(fitSteps(xs).changePoints).toEqual([59]);
  });

  it('inflates variances when the points scatter more than their intervals say', () => {
    const xs = Array.from({ length: 100 }, (_, i) => ({ value: 1 + 0.05 * Math.sin(i * 78.233), se: 0.001 }));
    expect(dispersionOf(xs)).toBeGreaterThan(100);
    expect(fitSteps(xs).changePoints.length).toBeLessThan(3);
  });
});

describe('history over a generated ledger', () => {
  it('finds the planted step, calls the newest point a regression (lower is better), and keeps silicon apart', () => {
    const entries = syntheticLedger(600, [
      S({ steps: [{ at: 200, factor: 1.08 }] }),
      S({ siliconKey: 'gpu:GB10|cc12.1', base: 2, steps: [] }),
    ], 7);
    const { report } = historyReport(parseLedger(ledgerText(entries)), {}, 'lower');
    expect(report.series).toHaveLength(2);
    const h200 = report.series.find((s) => s.siliconKey === 'gpu:H200|cc9.0')!;
    expect(h200.points).toBe(300);
    expect(h200.changePoints.map((c) => c.index)).toEqual([200]);
    expect(h200.changePoints[0]!.relPct!).toBeCloseTo(8, 0);
    expect(h200.newest!.regression).toBe(true);
    const gb10 = report.series.find((s) => s.siliconKey === 'gpu:GB10|cc12.1')!;
    expect(gb10.changePoints).toEqual([]);
    // never averaged: the GB10 series' level is its own (2), not a blend with the H200's (1)
    expect(report.mixedSilicon).toEqual([{ label: 'gate g: ab nh-ref, golden nh-ref-tiny, arms A NH_REF_X=0 | B NH_REF_X=1, mode decode', gate: 'g', metric: 'ratio', siliconKeys: ['gpu:GB10|cc12.1', 'gpu:H200|cc9.0'] }]);
    expect(report.verdict).toMatchObject({ word: 'REGRESSION', exitClass: 'failed' });
    // one CHANGE_POINT reason per regressed series, as data; the GB10 series (no step) gives none
    expect(report.verdict.reasons.map((r) => r.code)).toEqual(['CHANGE_POINT']);
    expect(report.verdict.reasons[0]!.message).toMatch(/ratio on gpu:H200\|cc9\.0: /);
    expect(historyReport(parseLedger(ledgerText(entries)), {}, 'higher').report.verdict.reasons.map((r) => r.code)).toEqual(['NO_WORSE_SEGMENT']);
    // the same step read as an improvement when higher is better
    expect(historyReport(parseLedger(ledgerText(entries)), {}, 'higher').report.verdict.word).toBe('NO REGRESSION');
  });

  it('finds a step in points without intervals (scatter from successive differences)', () => {
    const entries = syntheticLedger(300, [S({ withInterval: false, steps: [{ at: 150, factor: 0.9 }] })], 3);
    const { report } = historyReport(parseLedger(ledgerText(entries)), { gate: 'g', metric: 'ratio' }, 'lower');
    expect(report.series[0]!.changePoints.map((c) => c.index)).toEqual([150]);
    expect(report.verdict.word).toBe('NO REGRESSION');
  });
});

describe('ledger lines that cannot be read', () => {
  it('a truncated line and a newer-schema line are skipped, counted and named by line number', () => {
    const good = ledgerText(syntheticLedger(3, [S()]));
    const lines = good.trim().split('\n');
    const text = [lines[0], lines[1]!.slice(0, 40), JSON.stringify({ ...JSON.parse(lines[2]!), schemaVersion: 2 }), '{"schemaVersion":1}', lines[2]].join('\n') + '\n';
    const r = parseLedger(text, 'L.jsonl');
    expect(r.entries.map((e) => e.line)).toEqual([1, 5]);
    expect(r.skipped.map((s) => [s.line, s.reason])).toEqual([[2, 'truncated'], [3, 'newer-schema'], [4, 'not-an-entry']]);
    const { report } = historyReport(r, {}, 'lower');
    expect(report.skipped).toMatchObject({ count: 3, truncated: 1, newerSchema: 1, notEntries: 1 });
    expect(report.skipped.text).toMatch(/L\.jsonl: skipped 3 line\(s\) \(1 truncated, 1 from a newer schema, 1 not entries\): line 2 is not a whole JSON object/);
    expect(report.skipped.text).toMatch(/line 3 has schemaVersion 2; this nh-gate reads 1/);
  });
});

describe('nh-gate history (CLI)', () => {
  it('exit 1 on a regression with an SVG written; exit 0 without; --json is one document; exit 3 on an empty ledger', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-hist-'));
    writeFileSync(join(dir, 'ledger.jsonl'), ledgerText(syntheticLedger(120, [S({ steps: [{ at: 80, factor: 1.1 }] })], 5)) + '{"schemaVersion":1,"at":"2026');
    const r = await execa('node', [bin, 'history', '--results-dir', dir, '--json'], { reject: false });
    expect(r.exitCode).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.schemaVersion).toBe(1);
    expect(doc.series[0].changePoints[0].index).toBe(80);
    expect(doc.skipped.truncated).toBe(1);
    expect(r.stderr).toMatch(/skipped 1 line/);
    expect(existsSync(doc.series[0].plot)).toBe(true);
    expect(readFileSync(doc.series[0].plot, 'utf8')).toMatch(/^<svg/);
    const ok = await execa('node', [bin, 'history', '--results-dir', dir, '--better', 'higher', '--no-plot'], { reject: false });
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toMatch(/change at .*\+10\.\d+%\) better/);
    const none = await execa('node', [bin, 'history', '--results-dir', dir, '--gate', 'nope'], { reject: false });
    expect(none.exitCode).toBe(3);
    expect(none.stdout).toMatch(/NOT MEASURED — NO_FIGURES: no figures in .* match gate 'nope'/);
    const bad = await execa('node', [bin, 'history', '--results-dir', dir, '--better', 'sideways'], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

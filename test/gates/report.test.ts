import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJunit } from '../../src/report/junit.js';
import { renderSummaryMd } from '../../src/report/summary.js';
import { abLegsSpec, busyTimelineSpec, renderSvg } from '../../src/report/plots.js';
import { createRunDir, utcStamp } from '../../src/results/write.js';
import { writeAtomic } from '../../src/io/atomic.js';
import { appendLedger, ledgerOnSilicon } from '../../src/results/ledger.js';
import { resultJson, saveRun } from '../../src/report/save.js';
import { RESULT_SCHEMA_VERSION, type RunResult } from '../../src/results/types.js';
import { refused } from '../../src/quantity/make.js';
import { leg } from './fixtures.js';
import { H200 } from './fake.js';

function result(over: Partial<RunResult> = {}): RunResult {
  return {
    schemaVersion: RESULT_SCHEMA_VERSION, tool: { name: 'nh-gate', version: '0.1.0' }, command: 'ab', argv: [], runDir: '/tmp/x',
    startedAt: '2026-11-30T00:00:00.000Z', finishedAt: '2026-11-30T00:01:00.000Z', status: 'complete', recipe: { name: 'r', path: null },
    golden: null, gate: { name: 'g', path: 'g.json', sha256: 'a'.repeat(64), hypothesis: null }, arch: '90', silicon: H200, build: null, plan: null,
    legs: [leg(0, 'A', 0.002), leg(1, 'B', 0.001, { verdict: 'DIVERGENCE' }), { ...leg(2, 'B', null, { verdict: 'VOID' }), voidReasons: [{ code: 'TIMEOUT', message: 'killed <&>' }] }],
    quantities: { ratio: refused('ratio', 'NO_SAMPLES', 'none') }, comparison: null,
    verdict: { word: 'DIVERGENCE', exitClass: 'failed', reasons: [{ code: 'LEG_NOT_PASSED', message: 'leg 2 diverged' }] }, notes: ['no hypothesis was registered'],
    ...over,
  };
}

describe('report serializers', () => {
  it('junit: a failure per diverged leg, an error (never a pass) per void leg, XML-escaped', () => {
    const x = renderJunit(result());
    expect(x).toMatch(/tests="4" failures="2" errors="1"/);
    expect(x).toContain('<error type="VOID" message="VOID: TIMEOUT: killed &lt;&amp;&gt;"');
    expect(x).not.toContain('<&>');
  });

  it('summary.md leads with the verdict and carries the gate sha and every figure, refused ones by name', () => {
    const md = renderSummaryMd(result(), ['ab-per-token.svg']);
    expect(md.split('\n')[0]).toBe('## nh-gate ab: DIVERGENCE');
    expect(md).toContain('a'.repeat(64));
    expect(md).toContain('ratio REFUSED (NO_SAMPLES): none');
    expect(md).toContain('[ab-per-token.svg](ab-per-token.svg)');
  });

  it('result.json renders quantities in their SPEC shape and survives non-finite numbers', () => {
    const j = JSON.parse(resultJson(result({ notes: [], quantities: { ...result().quantities, nan: { status: 'measured', name: 'n', value: Number.NaN, unit: 'x', terms: {} } } })));
    expect(j.quantities.ratio).toEqual({ status: 'refused', name: 'ratio', reason: 'NO_SAMPLES', message: 'none' });
    expect(j.quantities.nan.value).toBeNull();
  });
});

describe('plots (vega, headless SVG)', () => {
  it('busy timeline marks the load and the decode window', async () => {
    const spec = busyTimelineSpec({ title: 't', samples: [{ tS: 0.1, gpuPct: 0 }, { tS: 1.2, gpuPct: 80 }], loadEndS: 0.5, decode: { startS: 0.5, endS: 1.5 }, legEndS: 1.6 });
    const windows = (spec.data as Array<{ name: string; values: unknown[] }>).find((d) => d.name === 'windows')!.values;
    expect(windows).toEqual([{ name: 'engine load', startS: 0, endS: 0.5 }, { name: 'decode window', startS: 0.5, endS: 1.5 }]);
    const svg = await renderSvg(spec);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('decode window');
  });

  it('A/B plot has one point per inter-token interval and a tick per leg', async () => {
    const spec = abLegsSpec('ab', [{ leg: '1 A', arm: 'A', tokenS: [0.001, 0.002], perTokenS: 0.0015 }, { leg: '2 B', arm: 'B', tokenS: [0.0005], perTokenS: null }]);
    const data = spec.data as Array<{ name: string; values: unknown[] }>;
    expect(data.find((d) => d.name === 'points')!.values).toHaveLength(3);
    expect(data.find((d) => d.name === 'ticks')!.values).toHaveLength(1);
    expect(await renderSvg(spec)).toMatch(/<svg[\s\S]*<\/svg>/);
  });
});

describe('results on disk', () => {
  it('saveRun: while running only result.json (with every finished leg), once ended every file; the listener after the write', async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'nh-save-'));
    const heard: string[][] = [];
    const live = { saved: () => heard.push(readdirSync(runDir).sort()) };
    const plots = { timelines: [], ab: { title: 't', legs: [] } };
    expect(await saveRun(result({ runDir, status: 'running' }), plots, live)).toEqual(['result.json']);
    expect(readdirSync(runDir)).toEqual(['result.json']);
    expect(JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8')).legs).toHaveLength(3);
    for (const status of ['interrupted', 'failed', 'complete'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'nh-save-'));
      expect(await saveRun(result({ runDir: dir, status }), plots)).toEqual(['result.json', 'summary.md', 'junit.xml', 'report.html']);
      expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'report.html', 'result.json', 'summary.md']);
      expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toMatch(/^## nh-gate ab: DIVERGENCE/);
    }
    expect(heard).toEqual([['result.json']]);
  });

  it('writes atomically (no temp file left) and names run dirs by UTC stamp and gate', () => {
    const base = mkdtempSync(join(tmpdir(), 'nh-res-'));
    const d1 = createRunDir(base, 'my gate', new Date('2026-11-30T04:17:00Z'));
    const d2 = createRunDir(base, 'my gate', new Date('2026-11-30T04:17:00Z'));
    expect(d1).toMatch(/runs\/20261130T041700Z-my-gate$/);
    expect(d2).not.toBe(d1);
    writeAtomic(join(d1, 'a.json'), '{}');
    expect(readdirSync(d1).filter((f) => f !== '.harness.json')).toEqual(['a.json']);
    expect(readdirSync(d1).some((f) => f.includes('.tmp'))).toBe(false);
    expect(utcStamp(new Date('2026-01-02T03:04:05.678Z'))).toBe('20260102T030405Z');
  });

  it('the ledger is append-only and found again by silicon key', () => {
    const base = mkdtempSync(join(tmpdir(), 'nh-ledger-'));
    appendLedger(base, result({ verdict: { word: 'SUPPORTED', exitClass: 'passed', reasons: [] } }));
    appendLedger(base, result({ silicon: { ...H200, gpuName: 'NVIDIA GB10', computeCapability: '12.1' } }));
    const lines = readFileSync(join(base, 'ledger.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    const h200 = ledgerOnSilicon(base, 'gpu:NVIDIA H200|cc9.0');
    expect(h200.entries.map((e) => e.verdict)).toEqual(['SUPPORTED']);
    expect(h200.entries[0]!.figures['leg1.perOutputToken']).toEqual({ value: 0.002, unit: 's' });
  });
});

import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM script without types
import { calibrateRecords, judgeBusyCli, judgeRun, parseCheckLines, summarize } from '../../scripts/gpu/prove-lib.mjs';
// @ts-expect-error plain ESM script without types
import { busyBoundPts, busyChecks, busyTable, cpuChecks, gpmChecks, uniformBusyPct } from '../../scripts/calibrate/judge.mjs';

// The battery's judgement, pure (issue #23): what counts as PASS for each kind of check, and the exit status.
type Rec = { step: string; name: string; status: string; threshold: string; figure: string };

const row = (o: Record<string, unknown>) => ({
  variant: 'full-gpu', dutyTarget: 0.5, truePct: 50.3, windowS: 4, afterPct: 50.6, beforePct: 49.1, samples: 21, coverage: 1,
  gpmSmUtilPct: 48, samplerCpuPerS: 0.0008, smiCpuPerS: 0.0018, samplerRunS: 5.4, samplerCpuByActivityS: { utilS: 0.0015 }, ...o,
});

describe('calibration thresholds (scripts/calibrate/judge.mjs)', () => {
  it('busy: 0.5 point at 20% or less, 1 point above, on windows of 3 s or more', () => {
    expect([0.05, 0.2, 0.5, 0.8].map(busyBoundPts)).toEqual([0.5, 0.5, 1, 1]);
    const [ok, low, high, short, refused, lost] = busyChecks([
      row({ dutyTarget: 0.2, truePct: 20.1, afterPct: 20.55 }),
      row({ dutyTarget: 0.2, truePct: 20.1, afterPct: 19.55 }),
      row({ dutyTarget: 0.8, truePct: 80, afterPct: 81.01 }),
      row({ windowS: 2.9 }),
      row({ afterPct: null, afterWhy: 'NO_SAMPLES: none' }),
      row({ loadError: 'exit 3' }),
    ]);
    expect(ok).toMatchObject({ name: 'busy full-gpu 20%', ok: true, threshold: '|nh-gate − truth| ≤ 0.5 pt over a window ≥ 3 s' });
    expect(ok.figure).toMatch(/^20\.55% vs truth 20\.10% \(\+0\.45 pts\) over 4\.000 s, 21 samples, coverage 1\.000$/);
    expect(low.ok).toBe(false);
    expect(low.figure).toMatch(/\(−0\.55 pts\)/);
    expect(high.ok).toBe(false);
    expect(short).toMatchObject({ ok: false, figure: expect.stringMatching(/window 2\.900 s is shorter than 3 s/) });
    expect(refused).toMatchObject({ ok: false, figure: 'nh-gate busy not measured: NO_SAMPLES: none' });
    expect(lost).toMatchObject({ ok: false, figure: 'the load failed: exit 3' });
  });

  it('GPM: full-GPU loads track the truth within max(2, 10%); one block stays under 2%; rising with duty', () => {
    const checks = gpmChecks([
      row({ dutyTarget: 0.05, truePct: 5.2, gpmSmUtilPct: 3.3 }),
      row({ dutyTarget: 0.8, truePct: 80, gpmSmUtilPct: 71.9 }),
      row({ variant: 'bursts', dutyTarget: 0.8, truePct: 80, gpmSmUtilPct: 72.1 }),
      row({ variant: 'one-block', dutyTarget: 0.8, truePct: 80, gpmSmUtilPct: 0.6 }),
      row({ variant: 'torch-bursts', gpmSmUtilPct: 20 }),
    ]);
    expect(checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ['GPM SM_UTIL full-gpu 5%', true],
      ['GPM SM_UTIL full-gpu 80%', false],
      ['GPM SM_UTIL bursts 80%', true],
      ['GPM SM_UTIL one-block 80%', true],
      ['GPM SM_UTIL rises with duty (full-gpu)', true],
    ]);
    const flat = gpmChecks([row({ dutyTarget: 0.2, gpmSmUtilPct: 30 }), row({ dutyTarget: 0.5, gpmSmUtilPct: 30 })]);
    expect(flat.at(-1)).toMatchObject({ ok: false, figure: '30.00 < 30.00' });
  });

  it('CPU: the sampler at most half of the nvidia-smi loop (median ratio), the drains alone beside it', () => {
    const [pass] = cpuChecks([row({}), row({ samplerCpuPerS: 0.0009 }), row({ samplerCpuPerS: 0.003 })]);
    expect(pass).toMatchObject({ ok: true });
    expect(pass.figure).toMatch(/^0\.50× \(sampler 0\.090% of a core, loop 0\.180%; driver-sample drains alone 0\.15×; 3 rows\)$/);
    expect(cpuChecks([row({ samplerCpuPerS: 0.0011 })])[0].ok).toBe(false);
    expect(cpuChecks([row({ smiCpuPerS: null })])[0]).toMatchObject({ ok: false, figure: 'no row measured both' });
  });

  it('the round-2 rule, kept for the before column: periods spread uniformly, readings as given', () => {
    const util = [{ tS: 1, gpuPct: 0, periodS: 1 }, { tS: 2, gpuPct: 40, periodS: 1 }, { tS: 3, gpuPct: 80, periodS: 1 }];
    expect(uniformBusyPct(util, { startS: 1.5, endS: 3 })).toBeCloseTo((40 * 0.5 + 80) / 1.5, 9);
    expect(uniformBusyPct(util, { startS: 5, endS: 6 })).toBeNull();
  });

  it('the table in docs/gpu-verdicts.md\'s shape', () => {
    const t = busyTable([row({}), row({ variant: 'torch-bursts', afterPct: null }), row({ loadError: 'x' })]);
    expect(t.split('\n')).toEqual([
      '| load | duty | window | truth (CUDA events) | nh-gate busy | error | same samples, round-2 rule | error |',
      '|---|---|---|---|---|---|---|---|',
      '| full-gpu | 50% | 4.0 s | 50.30% | 50.60% | +0.30 pts | 49.10% | −1.20 pts |',
      '| torch-bursts | 50% | 4.0 s | 50.30% | n/a | n/a | 49.10% | −1.20 pts |',
      '| full-gpu | 50% | n/a | n/a | n/a | n/a | n/a | n/a |',
    ]);
  });
});

describe('the battery\'s judgement (scripts/gpu/prove-lib.mjs)', () => {
  const ab = (word: string) => ({
    verdict: { word, reasons: ['criterion says so'] },
    quantities: {
      busyFractionPoints: { status: 'measured', value: 69.88, terms: { interval: { value: '[68.49, 70.21]' } } },
      perOutputTokenRatio: { status: 'measured', value: 0.038, terms: { interval: { value: '[0.0364, 0.0392]' } } },
    },
  });

  it('a3 passes on exit 0 with a token pass; ab on exit 0 with SUPPORTED; no result.json is a FAIL with the output\'s tail', () => {
    expect(judgeRun('ab-long', 'ab', ab('SUPPORTED'), 0)).toMatchObject({ status: 'PASS', threshold: 'exit 0 and SUPPORTED', figure: 'SUPPORTED (exit 0); busy B − A 69.8800 points [68.49, 70.21]; per-token B/A 0.0380x [0.0364, 0.0392]' });
    expect(judgeRun('ab-long', 'ab', ab('REFUTED'), 1)).toMatchObject({ status: 'FAIL', figure: expect.stringMatching(/^REFUTED \(exit 1\).* — criterion says so$/) });
    expect(judgeRun('ab-long', 'ab', ab('SUPPORTED'), 3).status).toBe('FAIL');
    const a3 = { verdict: { word: 'STRICT PASS' }, legs: [{ quantities: { perOutputToken: { status: 'measured', value: 0.0254 }, busy: { status: 'refused', reason: 'NO_SAMPLES' } } }] };
    expect(judgeRun('a3-medium', 'a3', a3, 0)).toMatchObject({ status: 'PASS', figure: 'STRICT PASS (exit 0); per output token 0.0254 s; busy REFUSED (NO_SAMPLES)' });
    expect(judgeRun('a3-medium', 'a3', null, 2, 'a\nb\nusage: bad flag\n')).toMatchObject({ status: 'FAIL', figure: 'no result.json (exit 2): b | usage: bad flag' });
  });

  it('busy-cli: nh-gate busy against the load\'s event-timed busy over nh-gate\'s own window', () => {
    const result = (busy: number, exitCode = 0) => ({
      quantities: { busy: { status: 'measured', value: busy } },
      comparison: { window: { startS: 1, endS: 6 }, process: { lastLines: ['LOAD READY', JSON.stringify({ busyMs: 1000, windowMs: 4990, trueBusyFraction: 0.2004 })] } },
      exitCode,
    });
    expect(judgeBusyCli('busy-cli', 0.2, result(20.3), 0)).toMatchObject({ name: 'busy-cli 20%', status: 'PASS', figure: expect.stringMatching(/^20\.30% vs 20\.00% \(\+0\.30 pts\) over nh-gate's 5\.000 s window; the load's own 20\.04% over 4\.990 s$/) });
    expect(judgeBusyCli('busy-cli', 0.2, result(20.6), 0).status).toBe('FAIL');
    expect(judgeBusyCli('busy-cli', 0.8, result(20.6), 0).status).toBe('PASS');
    expect(judgeBusyCli('busy-cli', 0.8, result(21.1), 0).status).toBe('FAIL');
    expect(judgeBusyCli('busy-cli', 0.2, result(20.3), 3).status).toBe('FAIL');
    const noLine = { ...result(20), comparison: { window: { startS: 1, endS: 6 }, process: { lastLines: ['oops'] } } };
    expect(judgeBusyCli('busy-cli', 0.2, noLine, 0)).toMatchObject({ status: 'FAIL', figure: expect.stringMatching(/load line unreadable/) });
  });

  it('calibration checks become records; a run without any is one FAIL', () => {
    const recs = calibrateRecords('calibrate', { checks: [{ name: 'busy x', ok: true, threshold: 't', figure: 'f' }, { name: 'cpu', ok: false, threshold: 't2', figure: 'f2' }] }, 1);
    expect(recs).toEqual([
      { step: 'calibrate', name: 'calibrate/busy x', status: 'PASS', threshold: 't', figure: 'f' },
      { step: 'calibrate', name: 'calibrate/cpu', status: 'FAIL', threshold: 't2', figure: 'f2' },
    ]);
    expect(calibrateRecords('calibrate', null, 1, 'Error: dist missing')).toMatchObject([{ status: 'FAIL', figure: 'no calibration.json checks (exit 1): Error: dist missing' }]);
  });

  it('a slot\'s own PASS/FAIL lines, else its exit code; a non-zero exit after passing lines still fails', () => {
    const text = 'noise\nPASS m1 — RED under its test: RED (exit 1)\nFAIL m2 — RED under its test: SURVIVED\n';
    expect(parseCheckLines('mutants', text, 1)).toEqual([
      { step: 'mutants', name: 'mutants/m1', status: 'PASS', threshold: 'RED under its test', figure: 'RED (exit 1)' },
      { step: 'mutants', name: 'mutants/m2', status: 'FAIL', threshold: 'RED under its test', figure: 'SURVIVED' },
    ]);
    expect(parseCheckLines('x', 'all fine\n', 0)).toMatchObject([{ name: 'x', status: 'PASS', threshold: 'the slot script exits 0' }]);
    expect(parseCheckLines('x', 'PASS a — t: f\n', 2).map((r: Rec) => r.status)).toEqual(['PASS', 'FAIL']);
  });

  it('the exit status: 1 on any FAIL, 3 when something did not run or nothing was judged, else 0; SKIPPED named', () => {
    const r = (name: string, status: string): Rec => ({ step: name, name, status, threshold: 't', figure: 'f' });
    const ok = summarize([r('probe', 'PASS'), r('mutants', 'SKIPPED')], 'head');
    expect(ok.exitCode).toBe(0);
    expect(ok.text).toMatch(/^head\nPASS     probe     t — f\nSKIPPED  mutants   t — f\n1 PASS, 0 FAIL, 1 SKIPPED \(mutants\), 0 NOT RUN\nbattery: PASSED\n$/);
    expect(summarize([r('probe', 'PASS'), r('ab-long', 'FAIL'), r('llama', 'NOT RUN')]).exitCode).toBe(1);
    const short = summarize([r('probe', 'PASS'), r('llama', 'NOT RUN')]);
    expect([short.exitCode, short.text.trim().split('\n').at(-1)]).toEqual([3, 'battery: INCOMPLETE (checks not run)']);
    const none = summarize([r('calibrate', 'SKIPPED')]);
    expect([none.exitCode, none.text.trim().split('\n').at(-1)]).toEqual([3, 'battery: NOTHING JUDGED (no check passed or failed)']);
  });
});

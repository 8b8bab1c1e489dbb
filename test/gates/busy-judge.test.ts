// The pure judge of `nh-gate busy` (src/gates/busy/busyJudge.ts): both executors hand it an observation, so
// these cases pin what it decides from marker times and samples alone, with no process and no sampler.
import { describe, expect, it } from 'vitest';
import type { SamplesFile } from '../../src/config/load.js';
import type { ProcessRun } from '../../src/exec/types.js';
import { busyWindow, judgeBusy, markerScanner, type BusyObserved } from '../../src/gates/busy/busyJudge.js';
import { reason } from '../../src/verdict/reasons.js';
import { H200 } from './fake.js';

const s = (tS: number): bigint => BigInt(Math.round(tS * 1e9));
const run = (startS: number, endS: number): ProcessRun => ({ argv: ['cmd'], pid: 1, startNs: s(startS), endNs: s(endS), exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, orphansKilled: false, lines: [] });
const noLogFault = { bytes: 10, droppedBytes: 0, fault: null, error: null };

function observed(lines: Array<[number, string]>, startMarker: string | undefined, endMarker: string | undefined, samplesFile: string | null = 'samples.jsonl'): BusyObserved {
  const scan = markerScanner(startMarker === undefined ? null : new RegExp(startMarker), endMarker === undefined ? null : new RegExp(endMarker));
  for (const [t, text] of lines) scan.feed(t, text);
  return { run: run(100, 110), markers: scan.times(), log: noLogFault, sampler: { backend: 'nvml', reason: null, count: 10, errors: [], samplesFile } };
}

// 100%-busy samples every 0.5 s from 100 s to 110 s, and 0% ones from 104 s on (so the window decides the mean).
function samples(): SamplesFile {
  const out: SamplesFile['samples'] = [];
  for (let t = 100.5; t <= 110; t += 0.5) out.push({ kind: 'util', tS: t, gpuPct: t <= 104 ? 100 : 0, periodS: 0.5 });
  return { header: { kind: 'header', schemaVersion: 1, source: 'nvml', clock: 'monotonic_s', clockConversion: 'test', nominalPeriodMs: 500 }, samples: out, garbage: [] };
}

const lines: Array<[number, string]> = [[100.1, 'loading'], [102, 'engine loaded in 1.9 s'], [104, 'decode done'], [108, 'bye']];

describe('busy judge (pure)', () => {
  it('the window opens at the start-marker line and closes at the end-marker line after it', () => {
    const o = observed(lines, 'engine loaded', 'decode done');
    expect(o.markers).toEqual({ markerS: 102, endS: 104, lastLineS: 108 });
    expect(busyWindow({ startMarker: 'engine loaded', endMarker: 'decode done' }, o.markers, o.run).window).toEqual({ startS: 102, endS: 104 });
    const j = judgeBusy({ command: ['cmd'], startMarker: 'engine loaded', endMarker: 'decode done', observed: o, samples: samples(), silicon: H200, originS: 100 });
    expect(j.quantities.busy).toMatchObject({ status: 'measured', value: 100 });
    expect(j.verdict.word).toBe('MEASURED');
    expect(j.comparison).toMatchObject({ window: { startS: 2, endS: 4, opensAt: 'first line matching /engine loaded/' } });
  });

  it('an end marker before the start marker does not close the window; without markers it spans start → last line', () => {
    const o = observed([[101, 'decode done'], [102, 'engine loaded'], [103, 'x']], 'engine loaded', 'decode done');
    expect(o.markers.endS).toBeNull();
    const bare = observed(lines, undefined, undefined);
    expect(busyWindow({}, bare.markers, bare.run).window).toEqual({ startS: 100, endS: 108 });
    const j = judgeBusy({ command: ['cmd'], observed: bare, samples: samples(), silicon: H200, originS: 100 });
    expect(j.quantities.busy).toMatchObject({ status: 'measured' });
    expect((j.quantities.busy as { value: number }).value).toBeLessThan(100);
  });

  it('a start marker that never appeared: WINDOW_UNKNOWN, NOT MEASURED (never the whole run)', () => {
    const o = observed(lines, 'never printed', undefined);
    const j = judgeBusy({ command: ['cmd'], startMarker: 'never printed', observed: o, samples: samples(), silicon: H200, originS: 100 });
    expect(j.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN', message: expect.stringMatching(/start marker \/never printed\/ never appeared/) });
    expect(j.verdict).toMatchObject({ word: 'NOT MEASURED', exitClass: 'void' });
  });

  it('an end marker that never appeared: WINDOW_UNKNOWN, not closed at exit', () => {
    const o = observed(lines, undefined, 'never printed');
    const j = judgeBusy({ command: ['cmd'], endMarker: 'never printed', observed: o, samples: samples(), silicon: H200, originS: 100 });
    expect(j.quantities.busy).toMatchObject({ status: 'refused', reason: 'WINDOW_UNKNOWN', message: expect.stringMatching(/not closed at exit/) });
    expect(j.comparison).toMatchObject({ window: null });
  });

  it('no sampler ran: NO_SAMPLES with the sampler\'s reason, never 0%', () => {
    const o = observed(lines, undefined, undefined, null);
    o.sampler = { ...o.sampler, backend: 'none', reason: 'no NVML and no nvidia-smi', count: 0 };
    const j = judgeBusy({ command: ['cmd'], observed: o, samples: null, silicon: H200, originS: 100 });
    expect(j.quantities.busy).toMatchObject({ status: 'refused', reason: 'NO_SAMPLES', message: expect.stringMatching(/no NVML and no nvidia-smi/) });
    expect(j.verdict.exitClass).toBe('void');
    expect(j.plots.timelines).toEqual([]);
  });

  it('an executor fault (a Slurm job cancelled): NOT MEASURED naming the fault, whatever was sampled', () => {
    const o = observed(lines, undefined, undefined);
    const j = judgeBusy({ command: ['cmd'], observed: o, samples: samples(), silicon: H200, originS: 100, fault: reason('SLURM_CANCELLED', 'job 7 on n1 ended CANCELLED') });
    expect(j.verdict).toEqual({ word: 'NOT MEASURED', exitClass: 'void', reasons: [{ code: 'SLURM_CANCELLED', message: 'job 7 on n1 ended CANCELLED' }] });
    expect(j.quantities.busy).toMatchObject({ status: 'refused' });
  });
});

import type { RefusalCode } from '../quantity/types.js';
import { NEMOTRON_H } from './builtin.js';
import { createDriverReader } from './reader.js';
import type { DoctestSummary } from './types.js';

function linesOf(text: string | readonly string[]): readonly string[] {
  return typeof text === 'string' ? text.split('\n') : text;
}

// Every doctest summary in a suite's output, in order (one per binary run), with thrown-case counts.
export function parseDoctestSummaries(text: string | readonly string[]): DoctestSummary[] {
  const reader = createDriverReader(NEMOTRON_H);
  for (const l of linesOf(text)) reader.push(l);
  return reader.report().doctest;
}

// The last doctest summary in a suite's output; null when none was printed (a crash, or not a doctest binary).
export function parseDoctestSummary(text: string | readonly string[]): DoctestSummary | null {
  const all = parseDoctestSummaries(text);
  return all[all.length - 1] ?? null;
}

export interface DoctestJudgement {
  verdict: 'GREEN' | 'RED' | 'REFUSED';
  reason: RefusalCode | null;
  message: string;
}

export interface DoctestJudgeOptions {
  // The assertion count the suite reports when its GPU cases take their skip path (a CPU-only box).
  cpuOnlyAssertions?: number;
  // Set when the run was meant to exercise the GPU cases: equal-to-CPU-only then means "not a GPU result".
  expectGpu?: boolean;
}

// GREEN / RED / REFUSED for one summary: judged on cases (a thrown case runs no assertions), zero selected
// cases refused, and a GPU run whose assertion count equals the CPU-only count refused as GPU_SKIPPED.
export function judgeDoctest(s: DoctestSummary | null, opts: DoctestJudgeOptions = {}): DoctestJudgement {
  if (!s || !s.cases) return { verdict: 'REFUSED', reason: 'CRASHED', message: 'no doctest summary was printed — the suite did not finish' };
  const { cases, assertions } = s;
  const assertionsText = assertions ? `${assertions.total} assertions, ${assertions.failed} failed` : 'no assertion line';
  if (cases.failed > 0 || s.threw > 0 || (assertions?.failed ?? 0) > 0 || s.status === 'FAILURE') {
    const hidden = assertions && assertions.failed === 0 && cases.failed > 0 ? ' (assertions read all-passed beside failed cases: a thrown case runs no assertions)' : '';
    return { verdict: 'RED', reason: null, message: `${cases.failed} of ${cases.total} cases failed, ${s.threw} threw; ${assertionsText}${hidden}` };
  }
  if (cases.total === 0 || cases.passed === 0) {
    return { verdict: 'REFUSED', reason: 'NO_CASES', message: `${cases.total} cases selected (${cases.skipped} skipped) — a suite that ran nothing is not a pass` };
  }
  if (opts.expectGpu && assertions && assertions.total === opts.cpuOnlyAssertions) {
    return { verdict: 'REFUSED', reason: 'GPU_SKIPPED', message: `${assertions.total} assertions — exactly the CPU-only count: the GPU cases took their skip path, this is not a GPU result` };
  }
  return { verdict: 'GREEN', reason: null, message: `${cases.passed} of ${cases.total} cases passed; ${assertionsText}` };
}

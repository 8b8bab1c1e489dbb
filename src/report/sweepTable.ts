import { formatBare } from '../quantity/render.js';
import type { RunResult } from '../results/types.js';
import type { SweepRecord } from '../results/comparison.js';
import { levelPct } from '../stats/bootstrap.js';
import { orderArms } from './rows.js';
import { refusalTag, type Grid } from './tables.js';

// A flag sweep's per-arm table: value, token-gated legs, median s/token, tokens/s, the per-token ratio against
// the baseline with its (Bonferroni) interval, and the arm's word. The text, summary.md, report.html and the
// markdown export all take this one grid.

// The sweep of a run, if it is one.
export function sweepOf(r: RunResult): SweepRecord | null {
  return r.comparison?.kind === 'ab' ? (r.comparison.sweep ?? null) : null;
}

export function sweepGrid(s: SweepRecord): Grid {
  const level = levelPct(s.correction.intervalLevel);
  const byArm = new Map(s.comparisons.map((c) => [c.arm, c]));
  const rows = orderArms(s.arms.map((a) => a.arm)).map((arm) => {
    const a = s.arms.find((x) => x.arm === arm)!;
    const c = byArm.get(arm);
    const ratio = a.baseline ? 'baseline' : !c ? '—'
      : c.ratio.status !== 'measured' ? refusalTag(c.ratio)
        : `${c.ratio.value.toFixed(4)} ${c.interval ? `[${c.interval.lo.toFixed(4)}, ${c.interval.hi.toFixed(4)}]` : '(no interval: n<2)'}`;
    const word = a.baseline ? '—' : (c?.word ?? 'reported');
    return [
      a.value, a.n === a.legs ? String(a.n) : `${a.n} of ${a.legs}`,
      a.medianPerTokenS === null ? '—' : formatBare(a.medianPerTokenS, 's'), a.tokensPerS === null ? '—' : a.tokensPerS.toFixed(2),
      ratio, word,
    ];
  });
  return { head: [s.flag, 'n', 'median s/token', 'tokens/s', `ratio vs ${s.baseline} [${level}]`, 'word'], right: [false, true, true, true, false, false], rows };
}

// The line under the table: the design and the correction, stated.
export function sweepMethodLines(s: SweepRecord): string[] {
  return [`design: ${s.design.text}`, `correction: ${s.correction.text}`];
}

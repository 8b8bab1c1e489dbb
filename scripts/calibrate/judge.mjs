// The calibration's thresholds and tables (issue #23), pure: rows in, checks and markdown out. run.mjs measures
// the rows on a GPU; test/gpu/calibrate-judge.test.ts checks these rules here, where there is none.
//
// A row: { variant, dutyTarget, truePct, windowS, afterPct (nh-gate's busy, null when refused), afterWhy,
//          beforePct (the round-2 rule over the same samples), samples, coverage, gpmSmUtilPct,
//          samplerCpuPerS, smiCpuPerS, samplerCpuByActivityS }.
// A check: { name, ok, threshold, figure }.

// The goal: within 1 point at every duty, 0.5 at 20% or less, on windows of 3 s or more.
export const MIN_WINDOW_S = 3;
export function busyBoundPts(dutyTarget) {
  return dutyTarget <= 0.2 + 1e-9 ? 0.5 : 1;
}

const f = (x, n = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(n));
const signed = (x, n = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(n)}`);
const pct = (d) => `${Math.round(d * 100)}%`;

// The round-2 rule, kept to print "before" beside "after" over the same samples: every sample's period spread
// uniformly over its overlap with the window, readings as given (what src/quantity/busy.ts did before #23).
export function uniformBusyPct(util, w) {
  let busy = 0;
  let covered = 0;
  let prevT = null;
  for (const s of [...util].sort((a, b) => a.tS - b.tS)) {
    const own = s.periodS > 0 ? s.tS - s.periodS : null;
    const start = own === null ? prevT : Math.max(own, prevT ?? own);
    prevT = s.tS;
    if (start === null) continue;
    const o = Math.min(s.tS, w.endS) - Math.max(start, w.startS);
    if (o <= 0) continue;
    busy += s.gpuPct * o;
    covered += o;
  }
  return covered > 0 ? busy / covered : null;
}

// One check per row: nh-gate's busy against the load's CUDA-event truth over the load's own window.
export function busyChecks(rows) {
  return rows.map((r) => {
    const bound = busyBoundPts(r.dutyTarget);
    const name = `busy ${r.variant} ${pct(r.dutyTarget)}`;
    const threshold = `|nh-gate − truth| ≤ ${bound} pt over a window ≥ ${MIN_WINDOW_S} s`;
    if (r.loadError) return { name, ok: false, threshold, figure: `the load failed: ${r.loadError}` };
    if (r.afterPct === null || r.afterPct === undefined) return { name, ok: false, threshold, figure: `nh-gate busy not measured: ${r.afterWhy ?? 'no figure'}` };
    const err = r.afterPct - r.truePct;
    const ok = r.windowS >= MIN_WINDOW_S && Math.abs(err) <= bound;
    const short = r.windowS < MIN_WINDOW_S ? ` — window ${f(r.windowS, 3)} s is shorter than ${MIN_WINDOW_S} s` : '';
    return { name, ok, threshold, figure: `${f(r.afterPct)}% vs truth ${f(r.truePct)}% (${signed(err)} pts) over ${f(r.windowS, 3)} s, ${r.samples} samples, coverage ${f(r.coverage, 3)}${short}` };
  });
}

// GPM SM_UTIL is the share of SM-time with work: for a load on every SM it tracks the duty; for one block it
// stays near duty / SMs. Checked per row, plus rising with duty for the full-GPU steady load.
export function gpmChecks(rows) {
  const out = [];
  for (const r of rows) {
    if (r.loadError) continue;
    const name = `GPM SM_UTIL ${r.variant} ${pct(r.dutyTarget)}`;
    if (r.variant === 'full-gpu' || r.variant === 'bursts') {
      const tol = Math.max(2, 0.1 * r.truePct);
      const ok = r.gpmSmUtilPct !== null && Math.abs(r.gpmSmUtilPct - r.truePct) <= tol;
      out.push({ name, ok, threshold: `|SM_UTIL − truth| ≤ max(2, 10% of truth) = ${f(tol)} pts`, figure: `${f(r.gpmSmUtilPct)}% vs truth ${f(r.truePct)}%` });
    } else if (r.variant === 'one-block') {
      const ok = r.gpmSmUtilPct !== null && r.gpmSmUtilPct <= 2;
      out.push({ name, ok, threshold: 'SM_UTIL ≤ 2% (one block of 32 threads: about duty / SMs)', figure: `${f(r.gpmSmUtilPct)}% at driver busy ${f(r.afterPct)}%` });
    }
  }
  const full = rows.filter((r) => r.variant === 'full-gpu' && !r.loadError).sort((a, b) => a.dutyTarget - b.dutyTarget);
  if (full.length >= 2) {
    const seq = full.map((r) => r.gpmSmUtilPct);
    const ok = seq.every((v, i) => v !== null && (i === 0 || v > seq[i - 1]));
    out.push({ name: 'GPM SM_UTIL rises with duty (full-gpu)', ok, threshold: 'strictly increasing over the duties', figure: seq.map((v) => f(v)).join(' < ') });
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};

// The sampler's CPU per second of its run against an `nvidia-smi -lms 100` loop watching the same run (the
// goal: at most half of it), as the median ratio over the rows; the driver-sample drains alone beside it.
export function cpuChecks(rows) {
  const usable = rows.filter((r) => r.samplerCpuPerS !== null && r.smiCpuPerS > 0 && r.samplerRunS > 0);
  const ratios = usable.map((r) => r.samplerCpuPerS / r.smiCpuPerS);
  const utilRatios = usable.filter((r) => r.samplerCpuByActivityS).map((r) => r.samplerCpuByActivityS.utilS / r.samplerRunS / r.smiCpuPerS);
  const m = median(ratios);
  const threshold = 'sampler thread CPU ≤ 0.5 × the nvidia-smi -lms 100 loop (median over rows)';
  if (m === null) return [{ name: 'sampler CPU vs nvidia-smi loop', ok: false, threshold, figure: 'no row measured both' }];
  const perS = (xs) => `${f(100 * median(xs), 3)}%`;
  return [{
    name: 'sampler CPU vs nvidia-smi loop',
    ok: m <= 0.5,
    threshold,
    figure: `${f(m, 2)}× (sampler ${perS(usable.map((r) => r.samplerCpuPerS))} of a core, loop ${perS(usable.map((r) => r.smiCpuPerS))}; driver-sample drains alone ${f(median(utilRatios), 2)}×; ${usable.length} rows)`,
  }];
}

// The table of docs/gpu-verdicts.md: one row per load and duty, nh-gate's figure and the round-2 rule's over
// the same samples, each with its error against the CUDA-event truth.
export function busyTable(rows) {
  const lines = [
    '| load | duty | window | truth (CUDA events) | nh-gate busy | error | same samples, round-2 rule | error |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const cell = (v, truth) => (typeof v === 'number' ? [`${f(v)}%`, `${signed(v - truth)} pts`] : ['n/a', 'n/a']);
  for (const r of rows) {
    if (r.loadError) {
      lines.push(`| ${r.variant} | ${pct(r.dutyTarget)} | n/a | n/a | n/a | n/a | n/a | n/a |`);
      continue;
    }
    const [after, afterErr] = cell(r.afterPct, r.truePct);
    const [before, beforeErr] = cell(r.beforePct, r.truePct);
    lines.push(`| ${r.variant} | ${pct(r.dutyTarget)} | ${f(r.windowS, 1)} s | ${f(r.truePct)}% | ${after} | ${afterErr} | ${before} | ${beforeErr} |`);
  }
  return lines.join('\n');
}

#!/usr/bin/env node
// The bookkeeping of scripts/gpu/prove.sh (issue #23): every check becomes one record
// {step, name, status, threshold, figure} appended to $PROVE_CHECKS (JSONL), judged here from what the step
// left (result.json, calibration.json, a slot's PASS/FAIL lines), and summarized at the end with the exit code.
// Pure functions are exported for test/gpu/prove.test.ts; the CLI below is what prove.sh calls:
//   node scripts/gpu/prove-lib.mjs record STEP NAME STATUS THRESHOLD FIGURE
//   node scripts/gpu/prove-lib.mjs judge-run STEP a3|ab RESULTS_DIR EXIT LOG
//   node scripts/gpu/prove-lib.mjs judge-busy-cli STEP DUTY RESULTS_DIR EXIT LOG
//   node scripts/gpu/prove-lib.mjs judge-calibrate STEP CAL_DIR EXIT LOG
//   node scripts/gpu/prove-lib.mjs judge-lines STEP EXIT LOG
//   node scripts/gpu/prove-lib.mjs summary HEADER_LINE      (prints the summary; its exit status is the battery's)
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyBoundPts } from '../calibrate/judge.mjs';

export const STATUSES = ['PASS', 'FAIL', 'SKIPPED', 'NOT RUN'];
const f = (x, n = 2) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(n) : 'n/a');

// The last lines of a step's output, for a figure that must say why nothing was judged.
export function tail(text, n = 2) {
  return text.trim().split('\n').slice(-n).join(' | ').slice(0, 300);
}

// The newest run directory under RESULTS_DIR/runs (each step has its own results dir), or null.
export function newestRun(resultsDir) {
  const runs = join(resultsDir, 'runs');
  if (!existsSync(runs)) return null;
  const dirs = readdirSync(runs).map((d) => join(runs, d)).filter((d) => existsSync(join(d, 'result.json')));
  dirs.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
  return dirs.at(-1) ?? null;
}

const interval = (q) => {
  const i = q?.terms?.interval?.value;
  return Array.isArray(i) ? ` [${f(i[0], 4)}, ${f(i[1], 4)}]` : typeof i === 'string' ? ` ${i}` : '';
};
const quantity = (q, unit = '') => (q && q.status === 'measured' ? `${f(q.value, 4)}${unit}${interval(q)}` : q ? `${q.status.toUpperCase()} (${q.reason})` : 'absent');

// a3: exit 0 and a token pass; ab: exit 0 and SUPPORTED. The figure carries the verdict and the key figures.
export function judgeRun(step, kind, result, exitCode, logText = '') {
  const want = kind === 'a3' ? ['STRICT PASS', 'NEAR-TIE PASS'] : ['SUPPORTED'];
  const threshold = `exit 0 and ${want.join(' or ')}`;
  if (!result) return { step, name: step, status: 'FAIL', threshold, figure: `no result.json (exit ${exitCode}): ${tail(logText)}` };
  const word = result.verdict?.word ?? 'no verdict';
  const ok = exitCode === 0 && want.includes(word);
  let figure = `${word} (exit ${exitCode})`;
  if (kind === 'ab') {
    const q = result.quantities ?? {};
    figure += `; busy B − A ${quantity(q.busyFractionPoints, ' points')}; per-token B/A ${quantity(q.perOutputTokenRatio, 'x')}`;
  } else {
    const leg = result.legs?.[0];
    figure += `; per output token ${quantity(leg?.quantities?.perOutputToken, ' s')}; busy ${quantity(leg?.quantities?.busy, '%')}`;
  }
  if (!ok && result.verdict?.reasons?.length) figure += ` — ${String(result.verdict.reasons[0]).slice(0, 240)}`;
  return { step, name: step, status: ok ? 'PASS' : 'FAIL', threshold, figure };
}

// `nh-gate busy --start-marker 'LOAD READY'` over a load that prints its own event-timed busy milliseconds as its
// last line: the truth over nh-gate's own window is busyMs over that window (all the busy lies inside it).
export function judgeBusyCli(step, duty, result, exitCode, logText = '') {
  const bound = busyBoundPts(duty);
  const name = `${step} ${Math.round(duty * 100)}%`;
  const threshold = `exit 0; |nh-gate busy − busyMs / window| ≤ ${bound} pt`;
  if (!result) return { step, name, status: 'FAIL', threshold, figure: `no result.json (exit ${exitCode}): ${tail(logText)}` };
  const busy = result.quantities?.busy;
  const w = result.comparison?.window;
  let load = null;
  try {
    load = JSON.parse(String(result.comparison?.process?.lastLines?.at(-1) ?? ''));
  } catch {
    /* judged below */
  }
  if (!busy || busy.status !== 'measured' || !w || !load || typeof load.busyMs !== 'number') {
    return { step, name, status: 'FAIL', threshold, figure: `busy ${quantity(busy, '%')}, window ${w ? 'known' : 'unknown'}, load line ${load ? 'read' : 'unreadable'} (exit ${exitCode})` };
  }
  const windowS = w.endS - w.startS;
  const truth = (100 * load.busyMs) / 1000 / windowS;
  const err = busy.value - truth;
  const ok = exitCode === 0 && Math.abs(err) <= bound && windowS >= 3;
  return { step, name, status: ok ? 'PASS' : 'FAIL', threshold, figure: `${f(busy.value)}% vs ${f(truth)}% (${err >= 0 ? '+' : '−'}${f(Math.abs(err))} pts) over nh-gate's ${f(windowS, 3)} s window; the load's own ${f(100 * load.trueBusyFraction)}% over ${f(load.windowMs / 1000, 3)} s` };
}

// calibration.json's checks, one record each; a run that left none is one FAIL.
export function calibrateRecords(step, cal, exitCode, logText = '') {
  if (!cal || !Array.isArray(cal.checks) || cal.checks.length === 0) {
    return [{ step, name: step, status: 'FAIL', threshold: 'scripts/calibrate/run.mjs writes its checks', figure: `no calibration.json checks (exit ${exitCode}): ${tail(logText)}` }];
  }
  return cal.checks.map((c) => ({ step, name: `${step}/${c.name}`, status: c.ok ? 'PASS' : 'FAIL', threshold: c.threshold ?? '', figure: c.figure ?? '' }));
}

// A slot script's own lines, "PASS name — threshold: figure" / "FAIL …"; with none, its exit code decides.
export function parseCheckLines(step, text, exitCode) {
  const out = [];
  for (const line of text.split('\n')) {
    const m = /^(PASS|FAIL)\s+(.+?)\s+—\s+(.*?)(?::\s+(.*))?$/.exec(line.trim());
    if (m) out.push({ step, name: `${step}/${m[2]}`, status: m[1], threshold: m[3], figure: m[4] ?? '' });
  }
  if (out.length === 0) out.push({ step, name: step, status: exitCode === 0 ? 'PASS' : 'FAIL', threshold: 'the slot script exits 0', figure: `exit ${exitCode}: ${tail(text)}` });
  else if (exitCode !== 0 && out.every((r) => r.status === 'PASS')) out.push({ step, name: step, status: 'FAIL', threshold: 'the slot script exits 0', figure: `exit ${exitCode} after its checks passed: ${tail(text)}` });
  return out;
}

// Counts, names and the battery's exit status: 1 when anything failed; 3 when nothing failed but a selected check
// did not run (budget) or nothing passed at all (nothing was judged); 0 otherwise. SKIPPED is named, never a pass.
export function summarize(records, header = '') {
  const by = Object.fromEntries(STATUSES.map((s) => [s, records.filter((r) => r.status === s)]));
  const width = Math.max(8, ...records.map((r) => r.name.length));
  const lines = [header, ...records.map((r) => `${r.status.padEnd(8)} ${r.name.padEnd(width)}  ${r.threshold}${r.figure ? ` — ${r.figure}` : ''}`)].filter((l) => l !== '');
  const names = (s) => (by[s].length ? ` (${by[s].map((r) => r.name).join(', ')})` : '');
  lines.push(`${by.PASS.length} PASS, ${by.FAIL.length} FAIL${names('FAIL')}, ${by.SKIPPED.length} SKIPPED${names('SKIPPED')}, ${by['NOT RUN'].length} NOT RUN${names('NOT RUN')}`);
  const exitCode = by.FAIL.length ? 1 : by['NOT RUN'].length || by.PASS.length === 0 ? 3 : 0;
  lines.push(exitCode === 0 ? 'battery: PASSED' : exitCode === 1 ? 'battery: FAILED' : by.PASS.length === 0 ? 'battery: NOTHING JUDGED (no check passed or failed)' : 'battery: INCOMPLETE (checks not run)');
  return { text: lines.join('\n') + '\n', exitCode };
}

// ---- CLI ----
const readJson = (p) => {
  try {
    return JSON.parse(readFileSync(p, 'utf8'));
  } catch {
    return null;
  }
};
const readText = (p) => (p && existsSync(p) ? readFileSync(p, 'utf8') : '');

function main(argv) {
  const file = process.env.PROVE_CHECKS;
  if (!file) throw new Error('PROVE_CHECKS is not set (prove.sh sets it)');
  const put = (recs) => {
    for (const r of recs) {
      appendFileSync(file, JSON.stringify(r) + '\n');
      process.stdout.write(`${r.status} ${r.name} — ${r.threshold}${r.figure ? `: ${r.figure}` : ''}\n`);
    }
  };
  const [cmd, ...a] = argv;
  switch (cmd) {
    case 'record':
      return put([{ step: a[0], name: a[1], status: a[2], threshold: a[3] ?? '', figure: a[4] ?? '' }]);
    case 'judge-run': {
      const run = newestRun(a[2]);
      return put([judgeRun(a[0], a[1], run && readJson(join(run, 'result.json')), Number(a[3]), readText(a[4]))]);
    }
    case 'judge-busy-cli': {
      const run = newestRun(a[2]);
      return put([judgeBusyCli(a[0], Number(a[1]), run && readJson(join(run, 'result.json')), Number(a[3]), readText(a[4]))]);
    }
    case 'judge-calibrate':
      return put(calibrateRecords(a[0], readJson(join(a[1], 'calibration.json')), Number(a[2]), readText(a[3])));
    case 'judge-lines':
      return put(parseCheckLines(a[0], readText(a[2]), Number(a[1])));
    case 'summary': {
      const recs = readText(file).split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const s = summarize(recs, a[0] ?? '');
      process.stdout.write(s.text);
      process.exitCode = s.exitCode;
      return undefined;
    }
    default:
      throw new Error(`prove-lib: unknown command ${String(cmd)}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));

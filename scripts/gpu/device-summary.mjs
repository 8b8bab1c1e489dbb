#!/usr/bin/env node
// The verdict of scripts/gpu/mutate-device.sh from the `nh-gate mutate --json` document it wrote: one line per
// device row (verdict, the restore proof against its tree's baseline sha, whether the binary moved) and the
// last line `device mutants: N judged, C CAUGHT, S SURVIVED, V VOID`. Exit 0 only when the run proves what
// the mode claims (see mutate-device.sh); 3 when nothing was judged; 1 otherwise.
// Usage: node scripts/gpu/device-summary.mjs RESULT.json table|in-diff MUTATE_EXIT
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Reasons that prove nothing about the device code (the ones this run exists to rule out).
const PROOF_VOIDS = new Set(['NOT_RESTORED', 'NOT_REPRODUCIBLE', 'GPU_SKIPPED', 'NO_GPU_ARCH']);

// Pure: the lines to print and the exit code, from the parsed mutate document.
export function summarize(doc, mode, mutateExit) {
  if (!doc || !Array.isArray(doc.rows)) {
    const why = doc?.error ? `${doc.error.code}: ${doc.error.message}` : 'no mutate result document';
    return { lines: [`mutate did not run: ${why}`, 'device mutants: 0 judged, 0 CAUGHT, 0 SURVIVED, 0 VOID'], exitCode: mutateExit === 2 ? 2 : 3 };
  }
  const base = (r) => (r.tree === null || r.tree === undefined ? null : doc.baselines?.find((b) => b.tree === r.tree)?.binarySha?.[r.mutation.suite] ?? null);
  const rows = doc.rows.filter((r) => r.mutation?.device === true);
  const lines = [];
  const bad = [];
  for (const r of rows) {
    const b = base(r);
    const built = r.binarySha !== null && r.binarySha !== undefined;
    const restored = built && b !== null && r.restoreSha === b;
    const proof = !built ? 'not built' : restored ? `restore proven (${b.slice(0, 12)})` : `restore NOT proven (${(r.restoreSha ?? 'nothing').slice(0, 12)} vs ${(b ?? '?').slice(0, 12)})`;
    const moved = !built ? '' : r.binarySha === b ? '; binary unchanged' : '; binary changed';
    lines.push(`  ${r.id}: ${r.verdict}${r.reason ? ` ${r.reason}` : ''} — ${proof}${moved}; ${r.detail}`);
    const judged = r.verdict === 'CAUGHT' || r.verdict === 'SURVIVED' || r.verdict === 'TIMEOUT';
    const word = `${r.verdict}${r.reason ? ` ${r.reason}` : ''}`;
    // One problem per row, the most basic first.
    if (judged && !restored) bad.push(`${r.id}: ${word} without its restore proof`);
    else if (r.verdict === 'VOID' && PROOF_VOIDS.has(r.reason)) bad.push(`${r.id}: ${word}: proves nothing about the device code`);
    else if (mode === 'table' && !r.matchesExpectation) bad.push(`${r.id}: ${word}, the table expects ${r.expected}`);
    else if (mode === 'in-diff' && r.verdict === 'VOID' && !r.excluded) bad.push(`${r.id}: ${word}`);
  }
  const n = (v) => rows.filter((r) => r.verdict === v).length;
  const caught = n('CAUGHT'), survived = n('SURVIVED'), voided = n('VOID'), timeout = n('TIMEOUT');
  if (rows.length === 0) bad.push('no device row in the result');
  if (mode === 'table' && mutateExit !== 0) bad.push(`nh-gate mutate exited ${mutateExit}`);
  if (doc.userTree && doc.userTree.unchanged !== true) bad.push('the user tree changed during the run');
  for (const b of bad) lines.push(`  not proven: ${b}`);
  lines.push(`device mutants: ${rows.length} judged, ${caught} CAUGHT, ${survived} SURVIVED, ${voided} VOID${timeout ? `, ${timeout} TIMEOUT` : ''}`);
  const nothing = caught + survived + timeout === 0;
  return { lines, exitCode: bad.length === 0 ? 0 : nothing ? 3 : 1 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, mode = 'table', rc = '0'] = process.argv.slice(2);
  let doc = null;
  try { doc = JSON.parse(readFileSync(file, 'utf8')); } catch { doc = null; }
  const { lines, exitCode } = summarize(doc, mode, Number(rc));
  process.stdout.write(lines.join('\n') + '\n');
  process.exit(exitCode);
}

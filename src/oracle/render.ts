import type { Golden } from '../config/golden.js';
import type { CaptureEvidence } from './capture.js';
import { smallestMargins } from './capture.js';
import { showToken } from './diff.js';

// The provenance block of `golden show` and of a capture's review: what a golden claims and on what evidence.
export function renderProvenance(g: Golden, path: string): string[] {
  const lines = [
    `golden ${g.name} (${path})`,
    `  oracle            ${g.oracle.name} ${g.oracle.version}${g.origin === 'regression' ? ' — REGRESSION golden: the engine was its own oracle (not independent)' : g.origin === 'independent' ? ' (independent of the engine)' : ''}`,
    `  checkpoint        ${g.checkpoint.name} revision ${g.checkpoint.revision}`,
    `  sampling          ${g.sampling.kind}, ${g.sampling.maxNewTokens} new tokens`,
    `  captured          ${g.capturedAt} on ${g.capturedHost}`,
    `  engine config     recorded: ${g.engineConfigRecorded}`,
    `  near-tie          ${g.nearTie.licensed ? `licensed at margin <= ${g.nearTie.maxMarginNats} nats` : 'not licensed'}`,
    `  determinism       ${g.determinism ? `${g.determinism.runs} run(s), ${g.determinism.multiValuedCells} multi-valued cell(s)` : 'no evidence recorded'}`,
    ...(g.source ? [`  source            ${g.source.format}: ${g.source.file} beside it, sha256 ${g.source.sha256} (imported from ${g.source.importedFrom})`] : []),
  ];
  for (const p of g.prompts) {
    lines.push(`  prompt ${p.id}: ${JSON.stringify(p.text ?? '')} prompt_tokens=${p.promptTokens.length} tokens=${p.tokens.length}`);
  }
  return lines;
}

// The n smallest margins with the token and the oracle's runner-up: the places a float32 engine may flip.
export function renderSmallestMargins(g: Golden, n: number): string[] {
  const rows = smallestMargins(g.prompts, n);
  if (rows.length === 0) return ['  margins: none recorded (the oracle had no logits)'];
  const lines = [`  smallest top-2 margins (nats):`];
  for (const r of rows) {
    const p = g.prompts.find((x) => x.id === r.prompt)!;
    const tok = p.tokens[r.position]!;
    const ru = p.runnerUp?.[r.position];
    const licensed = g.nearTie.licensed && r.marginNats <= g.nearTie.maxMarginNats ? '  NEAR-TIE licensed' : '';
    lines.push(`    prompt ${r.prompt} position ${r.position}: ${r.marginNats.toFixed(6)} (token ${showToken(tok)}${ru === undefined ? '' : `, runner-up ${showToken(ru)}`})${licensed}`);
  }
  return lines;
}

// The evidence a capture gathered beyond the golden's fields.
export function renderEvidence(e: CaptureEvidence, runs: number): string[] {
  const lines = [`  determinism: ${runs} oracle run(s), ${e.multiValuedCells} multi-valued cell(s)`];
  lines.push(e.crossCheck
    ? `  cross-check: fresh-prefill mode ${e.crossCheck.differingCells === 0 ? 'gives the same tokens' : `DIFFERS in ${e.crossCheck.differingCells} cell(s)`} (chunked-scan prefill vs single-step decode)`
    : '  cross-check: skipped (--no-cross-check)');
  return lines;
}

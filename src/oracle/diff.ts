import type { Golden, GoldenPrompt } from '../config/golden.js';

// The review step of a golden change: what a human must read before `golden accept`.
export interface GoldenDiff {
  changed: boolean;
  lines: string[];
}

// A byte token as a reviewer reads it.
export function showToken(t: number): string {
  return t >= 0x20 && t < 0x7f ? `${t} ${JSON.stringify(String.fromCharCode(t))}` : `${t} (0x${t.toString(16).padStart(2, '0')})`;
}

function minMargin(p: GoldenPrompt): number | null {
  const m = p.top2MarginNats;
  return m && m.length > 0 ? Math.min(...m) : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// Names the deepest changed keys of two records, so a reviewer reads one line per real change.
function field(label: string, before: unknown, after: unknown, lines: string[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const k of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) field(`${label}.${k}`, before[k], after[k], lines);
    return;
  }
  const a = JSON.stringify(before), b = JSON.stringify(after);
  if (a !== b) lines.push(`  ${label}: ${a ?? 'absent'} -> ${b ?? 'absent'}`);
}

function promptLines(before: GoldenPrompt | undefined, after: GoldenPrompt | undefined, lines: string[]): void {
  if (!before && after) { lines.push(`  prompt ${after.id}: ADDED ${JSON.stringify(after.text ?? '')} (${after.tokens.length} tokens)`); return; }
  if (before && !after) { lines.push(`  prompt ${before.id}: REMOVED ${JSON.stringify(before.text ?? '')}`); return; }
  if (!before || !after) return;
  if (JSON.stringify(before.promptTokens) !== JSON.stringify(after.promptTokens)) {
    lines.push(`  prompt ${after.id}: prompt changed ${JSON.stringify(before.text ?? '')} -> ${JSON.stringify(after.text ?? '')}`);
  }
  const width = Math.max(before.tokens.length, after.tokens.length);
  const moved: number[] = [];
  for (let i = 0; i < width; i++) if (before.tokens[i] !== after.tokens[i]) moved.push(i);
  if (moved.length === 0) {
    lines.push(`  prompt ${after.id}: tokens identical (${after.tokens.length})`);
  } else {
    const i = moved[0]!;
    const was = before.tokens[i], now = after.tokens[i];
    const margin = after.top2MarginNats?.[i];
    lines.push(`  prompt ${after.id}: ${moved.length} of ${width} tokens differ, first at position ${i} ` +
      `(was ${was === undefined ? 'absent' : showToken(was)}, now ${now === undefined ? 'absent' : showToken(now)}` +
      `${margin === undefined ? '' : `; new oracle margin there ${margin.toFixed(6)} nats`})`);
  }
  const a = minMargin(before), b = minMargin(after);
  if (a !== b) lines.push(`  prompt ${after.id}: smallest margin ${a === null ? 'none' : a.toFixed(6)} -> ${b === null ? 'none' : b.toFixed(6)} nats`);
}

// Compares a staged golden with the committed one; a null committed golden means this is a first capture.
export function diffGolden(committed: Golden | null, staged: Golden): GoldenDiff {
  const lines: string[] = [];
  if (!committed) {
    lines.push(`NEW golden ${staged.name}: no committed golden yet; ${staged.prompts.length} prompt(s) x ${staged.sampling.maxNewTokens} tokens`);
    return { changed: true, lines };
  }
  field('oracle', committed.oracle, staged.oracle, lines);
  field('checkpoint.revision', committed.checkpoint.revision, staged.checkpoint.revision, lines);
  field('checkpoint.name', committed.checkpoint.name, staged.checkpoint.name, lines);
  field('sampling', committed.sampling, staged.sampling, lines);
  field('nearTie', committed.nearTie, staged.nearTie, lines);
  field('determinism', committed.determinism, staged.determinism, lines);
  field('engineConfigRecorded', committed.engineConfigRecorded, staged.engineConfigRecorded, lines);
  field('engineConfig', committed.engineConfig, staged.engineConfig, lines);
  const provenanceChanged = lines.length > 0;
  const ids = [...new Set([...committed.prompts, ...staged.prompts].map((p) => p.id))].sort((a, b) => a - b);
  const promptStart = lines.length;
  for (const id of ids) promptLines(committed.prompts.find((p) => p.id === id), staged.prompts.find((p) => p.id === id), lines);
  const contentChanged = JSON.stringify(committed.prompts) !== JSON.stringify(staged.prompts);
  const changed = provenanceChanged || contentChanged;
  lines.splice(0, 0, changed
    ? `CHANGED golden ${staged.name}: ${[provenanceChanged ? 'provenance' : '', contentChanged ? 'prompts/tokens/margins' : ''].filter(Boolean).join(' and ')} changed against the committed one`
    : `UNCHANGED golden ${staged.name}: tokens, margins and provenance match the committed one (capture time and host aside)`);
  if (!changed) lines.splice(promptStart + 1);
  return { changed, lines };
}

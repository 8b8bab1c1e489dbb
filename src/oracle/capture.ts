import type { Golden, GoldenPrompt } from '../config/golden.js';
import type { Checkpoint } from './checkpoint.js';
import { generate } from './generate.js';
import type { Generation } from './generate.js';
import type { Model } from './model.js';
import { promptTokens } from './prompts.js';

// Recorded in every golden this oracle writes; bump the version when the oracle's math changes.
export const ORACLE = { name: 'nh-ref-oracle-f64 (TypeScript, float64, src/oracle)', version: '1.0.0' } as const;

// Everything a capture needs that is not the model: effects (clock, host) come in as values.
export interface CaptureOptions {
  name: string;
  prompts: readonly string[];
  maxNew: number;
  runs: number;
  nearTieNats: number;
  crossCheck: boolean;
  capturedAt: string;
  capturedHost: string;
  onProgress?: (line: string) => void;
}

// What the review step prints besides the diff: the evidence behind the golden's numbers.
export interface CaptureEvidence {
  multiValuedCells: number;
  crossCheck: { mode: 'fresh-prefill'; differingCells: number } | null;
  smallestMargins: { prompt: number; position: number; marginNats: number }[];
}

// Counts (prompt, position) cells where the K runs did not all produce the same token.
export function countMultiValued(runs: Generation[][]): number {
  const first = runs[0] ?? [];
  let cells = 0;
  first.forEach((gen, p) => {
    gen.tokens.forEach((_, i) => {
      const values = new Set(runs.map((r) => r[p]?.tokens[i]));
      if (values.size > 1) cells++;
    });
  });
  return cells;
}

// The n smallest oracle margins over all prompts: where an engine is most likely to flip legitimately.
export function smallestMargins(prompts: GoldenPrompt[], n: number): { prompt: number; position: number; marginNats: number }[] {
  const all = prompts.flatMap((p) => (p.top2MarginNats ?? []).map((m, i) => ({ prompt: p.id, position: i, marginNats: m })));
  return all.sort((a, b) => a.marginNats - b.marginNats || a.prompt - b.prompt || a.position - b.position).slice(0, n);
}

// Runs the oracle K times (and once in fresh-prefill mode) and builds the golden with its provenance.
export function captureGolden(ck: Checkpoint, model: Model, o: CaptureOptions): { golden: Golden; evidence: CaptureEvidence } {
  const tokenized = o.prompts.map(promptTokens);
  const runs: Generation[][] = [];
  for (let r = 0; r < o.runs; r++) {
    runs.push(tokenized.map((toks, i) => {
      o.onProgress?.(`oracle run ${r + 1}/${o.runs} prompt ${i} (${toks.length} tokens, decode mode)`);
      return generate(model, toks, o.maxNew, 'decode');
    }));
  }
  const base = runs[0]!;
  let crossCheck: CaptureEvidence['crossCheck'] = null;
  if (o.crossCheck) {
    const fresh = tokenized.map((toks, i) => {
      o.onProgress?.(`oracle cross-check prompt ${i} (fresh-prefill mode)`);
      return generate(model, toks, o.maxNew, 'fresh-prefill');
    });
    crossCheck = { mode: 'fresh-prefill', differingCells: countMultiValued([base, fresh]) };
  }
  const prompts: GoldenPrompt[] = base.map((g, id) => ({
    id, text: o.prompts[id]!, promptTokens: tokenized[id]!, tokens: g.tokens, top2MarginNats: g.top2MarginNats, runnerUp: g.runnerUp,
  }));
  const multiValuedCells = countMultiValued(runs);
  const golden: Golden = {
    schemaVersion: 1,
    name: o.name,
    oracle: { name: ORACLE.name, version: ORACLE.version },
    checkpoint: { name: `nh-ref-${ck.preset} (seed ${ck.seed})`, revision: ck.sha256 },
    sampling: { kind: 'greedy', maxNewTokens: o.maxNew },
    capturedAt: o.capturedAt,
    capturedHost: o.capturedHost,
    engineConfigRecorded: 'yes',
    engineConfig: {
      preset: ck.preset, seed: ck.seed, config: ck.config, dtype: 'float64',
      mode: 'decode', prefill: 'chunked scan (SSD form)', decode: 'single-step recurrence',
      crossCheck,
    },
    nearTie: { licensed: true, maxMarginNats: o.nearTieNats },
    determinism: { runs: o.runs, multiValuedCells },
    prompts,
  };
  return { golden, evidence: { multiValuedCells, crossCheck, smallestMargins: smallestMargins(prompts, 5) } };
}

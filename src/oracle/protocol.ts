import type { Golden, GoldenPrompt } from '../config/golden.js';
import { NhGateError } from '../errors.js';
import { formatZodIssues } from '../config/load.js';

// The oracle protocol (docs/engines.md): any program that reads one request on stdin and writes one answer on
// stdout can produce a golden. nh-gate runs it K times for the determinism evidence and records its provenance.

// What a golden's prompts are when the oracle is not nh-ref's: token ids (and an optional label).
export { PromptIdsSchema, OracleRequestSchema, OracleAnswerSchema } from '../config/oracleProtocol.js';
export type { OracleRequest, OracleAnswer } from '../config/oracleProtocol.js';
import { PromptIdsSchema, OracleAnswerSchema, type OracleRequest, type OracleAnswer } from '../config/oracleProtocol.js';

// Normalizes a prompt-ids file into request prompts (ids default to positions).
export function promptsFromIds(json: unknown, file: string): Array<{ id: number; text?: string; promptTokens: number[] }> {
  const r = PromptIdsSchema.safeParse(json);
  if (!r.success) throw new NhGateError('BAD_INPUT', formatZodIssues(file, r.error).join('\n'), 'write a JSON array of token-id arrays, or of {"id", "promptTokens": [..]} objects');
  const out = r.data.map((p, i) => (Array.isArray(p) ? { id: i, promptTokens: p } : { id: p.id ?? i, ...(p.text !== undefined ? { text: p.text } : {}), promptTokens: p.promptTokens }));
  const ids = new Set(out.map((p) => p.id));
  if (ids.size !== out.length) throw new NhGateError('BAD_INPUT', `${file}: two prompts share an id`, 'give every prompt its own id');
  return out;
}

// Validates one answer against the request: every prompt answered once, integer ids, the requested width,
// margins (when given) one per token. Each failure names the oracle, the field and the fix.
export function checkAnswer(json: unknown, req: OracleRequest, who: string): OracleAnswer {
  const r = OracleAnswerSchema.safeParse(json);
  if (!r.success) throw new NhGateError('BAD_INPUT', formatZodIssues(`oracle ${who}`, r.error).join('\n'), 'make the oracle answer in the protocol of docs/engines.md');
  const a = r.data;
  for (const p of req.prompts) {
    const got = a.prompts.filter((x) => x.id === p.id);
    if (got.length !== 1) throw new NhGateError('BAD_INPUT', `oracle ${who}: prompts: prompt ${p.id} answered ${got.length} times (the request has ${req.prompts.length} prompts, the answer ${a.prompts.length})`, 'answer every requested prompt exactly once');
    const g = got[0]!;
    if (g.tokens.length !== req.sampling.maxNewTokens) throw new NhGateError('BAD_INPUT', `oracle ${who}: prompts[${p.id}].tokens: ${g.tokens.length} tokens, the request asked for ${req.sampling.maxNewTokens}`, 'generate exactly sampling.maxNewTokens tokens per prompt');
    if (g.top2MarginNats && g.top2MarginNats.length !== g.tokens.length) throw new NhGateError('BAD_INPUT', `oracle ${who}: prompts[${p.id}].top2MarginNats: ${g.top2MarginNats.length} margins for ${g.tokens.length} tokens`, 'give one margin per generated token, or null when there are no logits');
  }
  if (a.prompts.length !== req.prompts.length) throw new NhGateError('BAD_INPUT', `oracle ${who}: prompts: ${a.prompts.length} answers for ${req.prompts.length} requested prompts`, 'answer only the requested prompts');
  return a;
}

// (prompt, position) cells where the K answers disagree.
export function multiValuedCells(answers: OracleAnswer[]): number {
  const first = answers[0]!;
  let cells = 0;
  for (const p of first.prompts) {
    p.tokens.forEach((_, i) => {
      const v = new Set(answers.map((a) => a.prompts.find((x) => x.id === p.id)!.tokens[i]));
      if (v.size > 1) cells += 1;
    });
  }
  return cells;
}

export interface ProtocolGoldenInput {
  name: string;
  request: OracleRequest;
  texts: Map<number, string>;
  answers: OracleAnswer[];
  origin: 'independent' | 'regression';
  nearTieNats: number;
  capturedAt: string;
  capturedHost: string;
  oracleArgv: string[];
}

// The golden from K answers: tokens and margins from the first run, the determinism count over all of them.
// A near-tie is licensed only when every position has a margin (an oracle without logits cannot license one).
export function goldenFromAnswers(i: ProtocolGoldenInput): Golden {
  const a = i.answers[0]!;
  const prompts: GoldenPrompt[] = i.request.prompts.map((rp) => {
    const ap = a.prompts.find((x) => x.id === rp.id)!;
    const text = i.texts.get(rp.id);
    return { id: rp.id, ...(text !== undefined ? { text } : {}), promptTokens: rp.promptTokens, tokens: ap.tokens, top2MarginNats: ap.top2MarginNats ?? null, ...(ap.runnerUp ? { runnerUp: ap.runnerUp } : {}) };
  });
  const margins = prompts.every((p) => p.top2MarginNats !== null);
  return {
    schemaVersion: 1,
    name: i.name,
    oracle: a.oracle,
    checkpoint: a.checkpoint,
    sampling: { kind: 'greedy', maxNewTokens: i.request.sampling.maxNewTokens },
    capturedAt: i.capturedAt,
    capturedHost: i.capturedHost,
    engineConfigRecorded: a.engineConfigRecorded,
    engineConfig: { ...(a.engineConfig ?? {}), oracleArgv: i.oracleArgv },
    nearTie: { licensed: margins && i.origin === 'independent', maxMarginNats: i.nearTieNats },
    determinism: { runs: i.answers.length, multiValuedCells: multiValuedCells(i.answers) },
    prompts,
    origin: i.origin,
  };
}

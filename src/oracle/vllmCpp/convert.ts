import type { Golden } from '../../config/golden.js';
import type { OracleDoc } from '../../config/vllmCppOracle.js';
import { pyJsonDump } from './pyjson.js';

// What an import knows besides the document: the golden's name and where the original came from.
export interface ImportMeta {
  name: string;
  sha256: string;
  importedFrom: string;
}

const UNSAID = 'unknown: the oracle file does not say';

// The engine's tri-state (main.cpp @ a7671175 ReadBoolAfter): true, false, or the file does not say.
function recorded(doc: OracleDoc): Golden['engineConfigRecorded'] {
  const r = doc.capture?.engine_config_recorded;
  return r === true ? 'yes' : r === false ? 'no' : 'unknown';
}

// oracle.json → an nh-gate golden. No margins: the file has no logits, so the golden licenses no NEAR-TIE.
// Determinism is claimed only where the writer recorded legs that agreed (check_golden: legs >= 2, legs_agree).
export function oracleToGolden(doc: OracleDoc, meta: ImportMeta): Golden {
  const c = doc.capture;
  const rec = recorded(doc);
  const { vllm: _v, model: _m, revision: _r, golden: _g, ...top } = doc;
  const legs = c?.legs;
  return {
    schemaVersion: 1,
    name: meta.name,
    oracle: { name: 'vllm', version: doc.vllm },
    checkpoint: { name: doc.model, revision: doc.revision },
    sampling: { kind: 'greedy', maxNewTokens: doc.sampling.max_tokens },
    capturedAt: c?.captured_utc ?? UNSAID,
    capturedHost: c?.host ?? UNSAID,
    engineConfigRecorded: rec,
    ...(rec === 'yes' && c?.engine !== undefined && c.engine !== null ? { engineConfig: { engine: c.engine } } : {}),
    nearTie: { licensed: false, maxMarginNats: 0 },
    determinism: typeof legs === 'number' && legs >= 1 && c?.legs_agree === true ? { runs: legs, multiValuedCells: 0 } : null,
    prompts: doc.golden.map((e, id) => ({ id, text: e.prompt, promptTokens: e.prompt_token_ids, tokens: e.token_ids, top2MarginNats: null })),
    source: {
      format: 'vllm-cpp-oracle', file: 'oracle.json', sha256: meta.sha256, importedFrom: meta.importedFrom,
      extra: { top: top as Record<string, unknown>, entryText: doc.golden.map((e) => e.text ?? null) },
    },
  };
}

// An nh-gate golden → the engine's document, in the writer's key order. An imported golden gets back every
// field it came with (source.extra); any other golden gets what its fields can say, and an oracle that is
// not vLLM is named as itself in the `vllm` field the driver echoes as "oracle vllm=…".
export function goldenToOracle(g: Golden): Record<string, unknown> {
  const top = g.source?.extra.top ?? {};
  const fromFields = g.engineConfigRecorded === 'unknown' ? undefined : {
    captured_utc: g.capturedAt, host: g.capturedHost, engine_config_recorded: g.engineConfigRecorded === 'yes',
    ...(g.determinism && g.determinism.multiValuedCells === 0 ? { legs: g.determinism.runs, legs_agree: true } : {}),
  };
  return {
    vllm: g.oracle.name === 'vllm' ? g.oracle.version : `${g.oracle.name} ${g.oracle.version}`,
    transformers: top.transformers,
    flashinfer: top.flashinfer,
    model: g.checkpoint.name,
    revision: g.checkpoint.revision,
    sampling: top.sampling ?? { temperature: 0, max_tokens: g.sampling.maxNewTokens },
    capture: g.source ? top.capture : fromFields,
    golden: g.prompts.map((p, i) => ({
      prompt: p.text ?? '', prompt_token_ids: p.promptTokens, token_ids: p.tokens,
      text: g.source?.extra.entryText[i] ?? undefined,
    })),
  };
}

// The engine's file for a golden, written the way its writer writes one (sampling.temperature is a float).
export function serializeOracle(g: Golden): string {
  return pyJsonDump(goldenToOracle(g), new Set(['sampling.temperature']));
}

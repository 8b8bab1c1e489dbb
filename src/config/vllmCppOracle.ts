import * as z from 'zod';
import { count, MAX_INT32, MAX_NEW_TOKENS } from './bounds.js';

// The engine's golden file, tests/parity/goldens/<name>/oracle.json in mudler/vllm.cpp, as its committed
// versions and its writer (scripts/nemotron-h-oracle-capture.py @ a7671175) shape it. Strict everywhere
// nh-gate maps a field; `capture` stays open because its contract is the engine's own (that script's
// check_golden), and nh-gate reads only the four fields of it that it maps onto a golden.

// The driver reads ids as int32 (std::atoll then static_cast<int32_t>, main.cpp ReadIntArrayAfter), so a
// larger id would wrap there; a negative id parses there but is no token. Both are refused here.
const TokenId = z
  .number({ error: 'a token id must be a number (the engine refuses a "non-numeric entry")' })
  .int('a token id must be an integer (the engine refuses "non-numeric entry")')
  .nonnegative('a token id cannot be negative')
  .max(2147483647, 'a token id must fit in int32 (the engine reads ids as int32_t)');

// One prompt of the engine's golden: its text, its pre-tokenized ids, and the ids the oracle generated.
export const OracleEntrySchema = z
  .object({
    prompt: z.string(),
    // main.cpp ReadGolden throws "an entry has an EMPTY prompt_token_ids" / "... EMPTY token_ids".
    prompt_token_ids: z.array(TokenId).min(1, 'empty: the engine refuses an entry with an EMPTY prompt_token_ids'),
    token_ids: z.array(TokenId).min(1, 'empty: the engine refuses an entry with an EMPTY token_ids'),
    text: z.string().optional(),
  })
  .strict();

// The capture block (#926): open, with the fields nh-gate maps onto a golden's provenance typed.
export const OracleCaptureSchema = z
  .object({
    engine_config_recorded: z.boolean().optional(),
    captured_utc: z.string().optional(),
    host: z.string().optional(),
    legs: count(0, MAX_INT32).nullable().optional(),
    legs_agree: z.boolean().nullable().optional(),
    engine: z.unknown().optional(),
  })
  .passthrough();

// The whole oracle.json.
export const OracleDocSchema = z
  .object({
    vllm: z.string().min(1, 'empty: the oracle version is the golden\'s provenance'),
    transformers: z.string().nullable().optional(),
    flashinfer: z.string().nullable().optional(),
    model: z.string().min(1, 'empty: the oracle\'s checkpoint is the golden\'s provenance'),
    revision: z.string().min(1, 'empty: the checkpoint revision is the golden\'s provenance'),
    sampling: z
      .object({
        temperature: z.number().min(0).max(2).refine((t) => t === 0, 'nh-gate goldens are greedy; the engine driver samples at temperature 0.0'),
        max_tokens: count(1, MAX_NEW_TOKENS),
        ignore_eos: z.boolean().optional(),
      })
      .strict(),
    capture: OracleCaptureSchema.optional(),
    // main.cpp refuses "the golden carries ZERO entries" (exit 2).
    golden: z.array(OracleEntrySchema).min(1, 'empty: the engine refuses a golden with ZERO entries (a comparison over nothing)'),
  })
  .strict()
  .superRefine((doc, ctx) => {
    // The writer's own contract (check_golden): every row is exactly sampling.max_tokens wide.
    doc.golden.forEach((e, i) => {
      if (e.token_ids.length !== doc.sampling.max_tokens) {
        ctx.addIssue({ code: 'custom', path: ['golden', i, 'token_ids'], message: `${e.token_ids.length} token ids against sampling.max_tokens=${doc.sampling.max_tokens}` });
      }
    });
  });

export type OracleDoc = z.infer<typeof OracleDocSchema>;
export type OracleEntry = z.infer<typeof OracleEntrySchema>;

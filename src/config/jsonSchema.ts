import * as z from 'zod';
import { RecipeSchema } from './recipe.js';
import { GateSchema } from './gate.js';
import { GoldenSchema } from './golden.js';
import { SampleLineSchema } from './samples.js';
import { ProfileSchema } from './profile.js';
import { EngineEventSchema } from './events.js';
import { OracleAnswerSchema, OracleRequestSchema, PromptIdsSchema } from './oracleProtocol.js';

// The JSON Schema files editors read (schemas/<name>.json), generated from the zod schemas so they cannot drift:
// scripts/emit-schemas.mjs writes them, test/core/schemas.test.ts fails when a committed file is stale.
export const SCHEMA_SOURCES = {
  recipe: RecipeSchema,
  gate: GateSchema,
  golden: GoldenSchema,
  samples: SampleLineSchema,
  profile: ProfileSchema,
  events: EngineEventSchema,
  'oracle-request': OracleRequestSchema,
  'oracle-answer': OracleAnswerSchema,
  'prompt-ids': PromptIdsSchema,
} as const;

export type SchemaName = keyof typeof SCHEMA_SOURCES;

// One schema document per boundary file, as the text that belongs in schemas/<name>.json.
export function jsonSchemaText(name: SchemaName): string {
  const doc = z.toJSONSchema(SCHEMA_SOURCES[name], { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const withId = { $id: `https://nh-gate.invalid/schemas/${name}.json`, title: `nh-gate ${name}`, ...doc };
  return JSON.stringify(withId, null, 2) + '\n';
}

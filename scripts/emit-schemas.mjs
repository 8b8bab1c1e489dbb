#!/usr/bin/env node
// Regenerates schemas/*.json from the zod schemas (run `npm run build` first). A test fails when they are stale.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_SOURCES, jsonSchemaText } from '../dist/config/jsonSchema.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'schemas'), { recursive: true });
for (const name of Object.keys(SCHEMA_SOURCES)) {
  const file = join(root, 'schemas', `${name}.json`);
  writeFileSync(file, jsonSchemaText(name));
  process.stderr.write(`wrote ${file}\n`);
}

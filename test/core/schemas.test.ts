import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_SOURCES, jsonSchemaText, type SchemaName } from '../../src/config/jsonSchema.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('schemas/*.json are generated from the zod schemas', () => {
  for (const name of Object.keys(SCHEMA_SOURCES) as SchemaName[]) {
    it(`schemas/${name}.json is current (regenerate: npm run build && node scripts/emit-schemas.mjs)`, () => {
      let onDisk = '';
      try {
        onDisk = readFileSync(join(ROOT, 'schemas', `${name}.json`), 'utf8');
      } catch {
        onDisk = '(missing)';
      }
      expect(onDisk, `schemas/${name}.json is stale or missing`).toBe(jsonSchemaText(name));
      expect(JSON.parse(onDisk).title).toBe(`nh-gate ${name}`);
    });
  }
});

import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { repoRoot } from '../helpers/engine.js';
import { jsonSchemaText } from '../../src/config/jsonSchema.js';
import { validateFile } from '../../src/config/validate.js';
import { loadInputs } from '../../src/gates/setup.js';

// docs/gates.md is the gate-file reference. It cannot drift from the schema: every field of the gate schema
// (read from the zod schema itself, through its JSON Schema) and every allowed value must be named on the
// page and set in one of its examples, and every example must be a gate that validates and loads.
const DOC = readFileSync(join(repoRoot, 'docs', 'gates.md'), 'utf8');

interface Field { path: string; values: string[] }

// Field paths of a JSON Schema: `hypothesis.expect`, `criteria.metrics[].atLeastPct`; a record's own keys are free.
export function schemaFields(node: Record<string, any>, prefix = '', out = new Map<string, Field>()): Map<string, Field> {
  for (const k of ['anyOf', 'oneOf', 'allOf']) for (const sub of node[k] ?? []) schemaFields(sub, prefix, out);
  for (const [key, sub] of Object.entries<Record<string, any>>(node.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    const f = out.get(path) ?? { path, values: [] };
    for (const v of [...(sub.enum ?? []), ...(sub.const !== undefined ? [sub.const] : [])]) if (!f.values.includes(String(v))) f.values.push(String(v));
    out.set(path, f);
    schemaFields(sub, path, out);
    if (sub.items) schemaFields(sub.items, `${path}[]`, out);
  }
  return out;
}

// The paths an example sets, in the same notation.
function examplePaths(v: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) examplePaths(x, `${prefix}[]`, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const path = prefix ? `${prefix}.${k}` : k;
      out.add(path);
      if (path !== 'env') examplePaths(x, path, out);
    }
  }
  return out;
}

const FIELDS = [...schemaFields(JSON.parse(jsonSchemaText('gate'))).values()];
const EXAMPLES = [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);

describe('docs/gates.md: the gate-file reference', () => {
  it('names every field of the gate schema (in backticks) and every value a field allows', () => {
    expect(FIELDS.length).toBeGreaterThan(30);
    const missing = FIELDS.filter((f) => !DOC.includes(`\`${f.path}\``)).map((f) => f.path);
    expect(missing, 'fields of src/config/gate.ts that docs/gates.md does not name').toEqual([]);
    const values = FIELDS.flatMap((f) => f.values.filter((v) => !DOC.includes(`\`${v}\``) && !DOC.includes(`"${v}"`)).map((v) => `${f.path} = ${v}`));
    expect(values, 'allowed values docs/gates.md does not name').toEqual([]);
  });

  it('sets every field in at least one example', () => {
    const set = new Set(EXAMPLES.flatMap((e) => [...examplePaths(e)]));
    expect(FIELDS.map((f) => f.path).filter((p) => !set.has(p))).toEqual([]);
  });

  it('every example is a whole gate that validates, and an a3/ab gate loads as the command would load it', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
    const dir = mkdtempSync(join(tmpdir(), 'nh-gates-doc-'));
    mkdirSync(join(dir, 'gates'));
    for (const g of EXAMPLES) {
      const file = join(dir, 'gates', `${String(g.name)}.json`);
      writeFileSync(file, JSON.stringify(g, null, 2));
      expect(validateFile(file, dir, undefined, repoRoot).issues, String(g.name)).toEqual([]);
      if (g.kind === 'a3' || g.kind === 'ab') {
        const inputs = loadInputs({ command: g.kind, gate: file }, repoRoot);
        expect(inputs.gate?.gate.name).toBe(g.name);
      }
    }
  });

  it('the misspelt key it shows is what validate prints, and its commands exit as stated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-gates-typo-'));
    mkdirSync(join(dir, 'gates'));
    const g = JSON.parse(readFileSync(join(repoRoot, 'gates', 'nh-ref', 'decode-step-ab.json'), 'utf8'));
    g.hypothesis.refutedIfLessThan = g.hypothesis.refutedIfLessThanPct;
    delete g.hypothesis.refutedIfLessThanPct;
    writeFileSync(join(dir, 'gates', 'typo.json'), JSON.stringify(g, null, 2)); // as a person writes it: the error's line:column is a real one
    const bad = await execa('node', [join(repoRoot, 'bin', 'nh-gate.js'), 'validate', 'gates/typo.json'], { cwd: dir, reject: false });
    expect(bad.exitCode).toBe(2);
    const shown = DOC.match(/^gates\/typo\.json: hypothesis\.refutedIfLessThan: .*$/m)![0];
    expect(bad.stdout.split('\n')).toContain(shown);
    for (const m of DOC.matchAll(/^npx nh-gate (.+?)\s+# exit (\d+) \(([^)]+)\)$/gm)) {
      const r = await execa('node', [join(repoRoot, 'bin', 'nh-gate.js'), ...m[1]!.split(/\s+/)], { cwd: repoRoot, reject: false });
      expect(r.exitCode, `${m[1]}\n${r.stdout}\n${r.stderr}`).toBe(Number(m[2]));
      expect(r.stdout).toContain(m[3]);
    }
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { GateSchema } from '../../src/config/gate.js';
import { BIN } from './cli.js';

// Fault: a gate name that is a path. The run directory name was sanitized, but a name should be a name.
describe('fault: a gate name with path characters', () => {
  it('is refused at validate, by field, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-name-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ schemaVersion: 1, kind: 'a3', name: '../../tmp/x', recipe: 'nh-ref' }));
    const r = await execa('node', [BIN, 'validate', file], { reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stdout + r.stderr).toContain(`${file}: name: a gate name is letters, digits, ".", "_" and "-" (no "/", no leading "."), at most 128 characters`);
  });

  it('names are letters, digits, dot, underscore, dash; no slash, no leading dot, not empty', () => {
    const ok = (name: string) => GateSchema.safeParse({ schemaVersion: 1, kind: 'a3', name, recipe: 'nh-ref' }).success;
    for (const good of ['nh-ref-a3', 'a.b_c-1', 'X']) expect(ok(good), good).toBe(true);
    for (const bad of ['../../tmp/x', 'a/b', '.hidden', '', 'a b', 'x'.repeat(129), 'a\\b']) expect(ok(bad), bad).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GateSchema } from '../../src/config/gate.js';
import { CriterionSchema, CriteriaSchema } from '../../src/config/criteria.js';

// The examples in docs/gpu-verdicts.md: the gate is the committed one and parses; the bad criterion fails as the doc says.
const root = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(root, 'docs/gpu-verdicts.md'), 'utf8');
const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/gpu-verdicts.md examples', () => {
  it('the gate example is gates/nh-ref/device-ab-long.json and is a valid gate', () => {
    const gate = JSON.parse(blocks[0]!);
    expect(gate).toEqual(JSON.parse(readFileSync(join(root, 'gates/nh-ref/device-ab-long.json'), 'utf8')));
    expect(GateSchema.safeParse(gate).success).toBe(true);
  });
  it('the bad criterion fails with the message the doc quotes', () => {
    const crit = JSON.parse(blocks[1]!);
    expect(CriterionSchema.safeParse(crit).success).toBe(true);
    const r = CriteriaSchema.safeParse({ statement: 's', combine: 'all', metrics: [crit] });
    expect(r.success).toBe(false);
    const quoted = /is `criteria\.metrics\.0\.form: (.*?)`/.exec(doc)![1]!;
    expect(`${r.error!.issues[0]!.path.join('.')}: ${r.error!.issues[0]!.message}`).toContain(`metrics.0.form: ${quoted}`);
  });
});

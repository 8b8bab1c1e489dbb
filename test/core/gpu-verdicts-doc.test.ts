import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
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

  // Issue #23: the after-table is the H200 battery's own busy-table.md, pasted. Until evidence/h200-r3/ holds that
  // file the region carries a marked placeholder; once it does, the region must be that table, byte for byte.
  it('the busy after-table is the committed battery output, or a marked placeholder until it is committed', () => {
    const region = /<!-- busy-table h200-r3: [^\n]*-->\n([\s\S]*?)\n<!-- \/busy-table -->/.exec(doc);
    expect(region, 'the marked busy-table region is missing from docs/gpu-verdicts.md').not.toBeNull();
    const body = region![1]!.trim();
    const evidence = join(root, 'evidence/h200-r3/busy-table.md');
    if (existsSync(evidence)) {
      expect(body, 'paste evidence/h200-r3/busy-table.md over the placeholder').toBe(readFileSync(evidence, 'utf8').trim());
      expect(body).not.toMatch(/PENDING/);
      expect(body.split('\n')[0]).toBe('| load | duty | window | truth (CUDA events) | nh-gate busy | error | same samples, round-2 rule | error |');
    } else {
      expect(body).toMatch(/^PENDING: the H200 run of `scripts\/gpu\/prove\.sh` \(issue #23\)/);
    }
  });
});

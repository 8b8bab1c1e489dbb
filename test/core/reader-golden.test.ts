import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDriverReader, MAX_COUNTER_GROUPS, MAX_COUNTER_RECORDS, MAX_PROMPT_ROWS, MAX_REFERENCE_TIER_LINES } from '../../src/profiles/reader.js';
import { NEMOTRON_H, NH_REF } from '../../src/profiles/builtin.js';
import type { Profile } from '../../src/profiles/types.js';
import { A3_PASS, ARM_DECODE, ARM_PREFILL, DOCTEST_GREEN, DOCTEST_RED, FEATURES_121A } from './fixtures.js';

// The whole typed report for a log that holds every line shape, pinned in test/core/golden/reader.json.
// Accept a deliberate change explicitly: NHG_ACCEPT=1 npx vitest run test/core/reader-golden.test.ts
const GOLDEN = join(import.meta.dirname, 'golden', 'reader.json');

const EVERYTHING = [
  '[nemotron-h]   got: 1 2 (before any row: binds to the next row, by the grammar)',
  ...FEATURES_121A,
  '--   CUDA feature always-on: ENABLED',
  '--   nh-ref feature mamba-gemv: ENABLED for [90, 121a]',
  '--   nh-ref feature mamba-scan: DISABLED (NH_REF_CUDA=OFF)',
  '[doctest] doctest version is "2.4.9"',
  '[doctest] test cases: 4 | 1 passed | 1 failed | 2 skipped',
  'ERROR: test case THREW exception: thrown between the case line and the status line',
  '[doctest] Status: FAILURE!',
  '[doctest] test cases: 1 | 0 passed | 1 failed | 0 skipped test case THREW exception (one line, two shapes: first exclusive pattern wins)',
  '[doctest] Status: FAILURE!',
  ...DOCTEST_RED,
  'TEST CASE:  paged forward',
  'ERROR: test case THREW exception: No valid attention backend for device type 0',
  '[doctest] test cases: 13 |  2 passed | 11 failed | 0 skipped',
  '[doctest] assertions: 18 | 18 passed |  0 failed |',
  '[doctest] Status: FAILURE!',
  ...DOCTEST_GREEN,
  ...A3_PASS.slice(0, 2),
  '[nemotron-h] libvllm 9.9.9 (a second banner is ignored)',
  ARM_PREFILL,
  ...A3_PASS.slice(2, 4),
  '[nemotron-h]   got: 5 6 7',
  '[nemotron-h]   exp: 5 6 8',
  'prompt 3 got: 9 9',
  '[nemotron-h] prompt 1: got: 5 6 7 (numbered, matches the last row)',
  '[nemotron-h] engine loaded in 2.0s on the reference tier (both shapes: the tier line is not exclusive)',
  ARM_DECODE,
  ARM_DECODE,
  '[nemotron-h reference-tier] op=ssd_chunk_scan device=cuda:0 has NO native kernel; running the PORTABLE fallback',
  ...A3_PASS.slice(4),
  '[nemotron-h] engine loaded in 1.0s',
  '[nemotron-h] prompt 0: prompt_tokens=5 generated=20 golden_width=32 compared=20 matched=19 wall=9.9s  <-- SHORT RUN',
  '[nemotron-h] TOKEN MATCH: 19/20 over 1 prompt(s) (full rows=0, short rows=1, mode=fresh-prefill)',
  '[nemotron-h] DIVERGENCE',
  '[nemotron-h] NEAR-TIE PASS at 1 position',
  '[nemotron-h] SHORT',
  '[nemotron-h] REFUSING:   golden width 32 exceeds 16   ',
  '[nemotron-h] prompt 1: prompt_tokens=5 generated=32 golden_width=32 compared=32 matched=32 wall=1.0s',
];

function reportOf(profile: Profile, lines: readonly string[], timed: boolean) {
  const r = createDriverReader(profile);
  lines.forEach((l, i) => r.push(l, timed ? 100 + i / 4 : undefined));
  return JSON.parse(JSON.stringify(r.report()));
}

describe('reader golden file', () => {
  it('the report of a log with every line shape matches test/core/golden/reader.json', () => {
    const actual = {
      nemotronTimed: reportOf(NEMOTRON_H, EVERYTHING, true),
      nemotronPlain: reportOf(NEMOTRON_H, EVERYTHING, false),
      nhRef: reportOf(NH_REF, EVERYTHING.map((l) => l.replace('[nemotron-h]', '[nh-ref]')), true),
    };
    // Accepting is explicit (NHG_ACCEPT=1); a missing golden fails, it never writes itself.
    if (process.env.NHG_ACCEPT === '1') writeFileSync(GOLDEN, JSON.stringify(actual, null, 2) + '\n');
    expect(existsSync(GOLDEN), `${GOLDEN} is missing: review the output and accept it with NHG_ACCEPT=1`).toBe(true);
    expect(actual).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));
  });
});

describe('caps keep memory flat; what passes a cap is still counted', () => {
  it('prompt rows past the cap are summed into their block, not listed', () => {
    const r = createDriverReader(NEMOTRON_H);
    for (let i = 0; i < MAX_PROMPT_ROWS + 3; i++) r.push(`[nemotron-h] prompt ${i}: prompt_tokens=1 generated=2 golden_width=2 compared=2 matched=1 wall=0.1s`);
    r.push('[nemotron-h] TOKEN MATCH: 1/2 over 1 prompt(s) (full rows=1, short rows=0, mode=decode)');
    const rep = r.report();
    expect(rep.prompts).toHaveLength(MAX_PROMPT_ROWS);
    expect(rep.promptsDropped).toBe(3);
    expect(rep.tokenMatch[0]?.rowTotals).toMatchObject({ rows: MAX_PROMPT_ROWS + 3, compared: 2 * (MAX_PROMPT_ROWS + 3), matched: MAX_PROMPT_ROWS + 3 });
    expect(rep.prompts.every((p) => p.block === 0)).toBe(true);
  });

  it('counter records and groups are capped; totals and overflow are counted', () => {
    const r = createDriverReader(NEMOTRON_H);
    const n = MAX_COUNTER_RECORDS + 5;
    for (let i = 0; i < n; i++) r.push(`ARM step T=1 step=${i % (MAX_COUNTER_GROUPS + 10)}`);
    const rep = r.report();
    expect(rep.counters.total).toBe(n);
    expect(rep.counters.records).toHaveLength(MAX_COUNTER_RECORDS);
    expect(rep.counters.recordsDropped).toBe(5);
    expect(rep.counters.groups).toHaveLength(MAX_COUNTER_GROUPS);
    expect(rep.counters.groups.reduce((s, g) => s + g.count, 0) + rep.counters.groupsOverflow).toBe(n);
    expect(rep.counters.groups[0]).toMatchObject({ label: 'ARM step', fields: { T: 1, step: 0 }, firstLine: 1 });
    expect(rep.counters.records[MAX_COUNTER_RECORDS - 1]?.fields.step).toBe((MAX_COUNTER_RECORDS - 1) % (MAX_COUNTER_GROUPS + 10));
  });

  it('reference-tier lines: all counted, the first 100 kept', () => {
    const r = createDriverReader(NH_REF);
    for (let i = 0; i < MAX_REFERENCE_TIER_LINES + 7; i++) r.push(`[nh-ref reference-tier] op=op${i} device=cpu has NO native kernel; running the PORTABLE fallback`);
    const rep = r.report();
    expect(rep.referenceTier.count).toBe(MAX_REFERENCE_TIER_LINES + 7);
    expect(rep.referenceTier.lines).toHaveLength(MAX_REFERENCE_TIER_LINES);
    expect(rep.referenceTier.lines[99]?.op).toBe('op99');
  });
});

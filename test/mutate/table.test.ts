import { describe, expect, it } from 'vitest';
import { checkTableAgainstRecipe, parseMutationTable } from '../../src/config/mutations.js';
import { NhGateError } from '../../src/errors.js';

const good = { id: 'self', selfTest: true, file: 'native/engine/src/a.cpp', anchor: 'x', replacement: 'y', why: 'w', suite: 'unit', expect: 'caught' };
const parse = (mutants: object[]) => parseMutationTable(JSON.stringify({ schemaVersion: 1, recipe: 'nh-ref', mutants }), 'gates/t.json');

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(NhGateError);
    expect((err as NhGateError).exitClass).toBe('usage');
    return (err as Error).message;
  }
  throw new Error('did not throw');
}

describe('mutation table schema', () => {
  it('accepts a minimal table and fills defaults', () => {
    const t = parse([good]);
    expect(t.timeoutFactor).toBe(5);
    expect(t.timeoutFloorS).toBe(10);
    expect(t.mutants[0]!.selfTest).toBe(true);
  });

  it('names file, field and problem for each mistake', () => {
    expect(messageOf(() => parse([good, { ...good, selfTest: false, expect: 'killed' }]))).toMatch(/gates\/t\.json: mutants\.1\.expect: /);
    expect(messageOf(() => parse([good, { ...good, selfTest: false }]))).toMatch(/gates\/t\.json: mutants\.1\.id: duplicate id 'self'/);
    expect(messageOf(() => parse([{ ...good, replacement: 'x' }]))).toMatch(/mutants\.0\.replacement: equals the anchor/);
    expect(messageOf(() => parse([{ ...good, selfTest: false, id: 'a' }]))).toMatch(/suite 'unit' has no selfTest row/);
    expect(messageOf(() => parse([{ ...good, expect: 'survived' }]))).toMatch(/mutants\.0\.expect: a selfTest row must expect 'caught'/);
    expect(messageOf(() => parseMutationTable('{', 'gates/t.json'))).toMatch(/gates\/t\.json: not valid JSON/);
  });

  it('refuses a suite the recipe lacks and a file outside its sourceDir', () => {
    const t = parse([good, { ...good, id: 'b', selfTest: false, file: 'src/cli/main.ts' }]);
    const recipe = { name: 'nh-ref', suites: [{ name: 'other' }] };
    const msg = messageOf(() => checkTableAgainstRecipe(t, 'gates/t.json', recipe, 'native/engine'));
    expect(msg).toMatch(/mutants\.0\.suite: no suite 'unit' in recipe 'nh-ref' \(it has: other\)/);
    expect(msg).toMatch(/mutants\.1\.file: 'src\/cli\/main\.ts' is outside the recipe sourceDir 'native\/engine'/);
    expect(() => checkTableAgainstRecipe(parse([good]), 'gates/t.json', { name: 'nh-ref', suites: [{ name: 'unit' }] }, 'native/engine')).not.toThrow();
  });
});

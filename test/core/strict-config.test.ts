import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateFile } from '../../src/config/validate.js';
import { editDistance, nearestKey, knownKeysAt } from '../../src/config/nearest.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { configProject } from './fixtures.js';
import { namedGroups, regexError } from '../../src/config/regex.js';

const ROOT = resolve(import.meta.dirname, '../..');
const recipe = (): Record<string, any> => JSON.parse(readFileSync(join(ROOT, 'recipes/nh-ref.json'), 'utf8'));
const gate = (): Record<string, any> => JSON.parse(readFileSync(join(ROOT, 'gates/nh-ref/decode-step-ab.json'), 'utf8'));

// Validated inside a project that has the recipe and golden the shipped gate names (references resolve).
function check(sub: string, name: string, json: unknown): string[] {
  const dir = configProject(ROOT);
  mkdirSync(join(dir, sub), { recursive: true });
  const file = join(dir, sub, name);
  writeFileSync(file, JSON.stringify(json));
  return validateFile(file, dir).issues;
}

describe('strict configs: an unknown key is an error naming the nearest known key', () => {
  it('recipe: buildDirr, driver.timeout, flags.X.of are each named with the fix', () => {
    const r = recipe();
    r.buildDirr = 'x';
    r.driver.timeout = 3;
    r.flags.DEVICE_MAMBA.of = '1';
    const issues = check('recipes', 'r.json', r);
    expect(issues).toHaveLength(3);
    expect(issues.join('\n')).toMatch(/r\.json: buildDirr: unknown key — did you mean 'buildDir'\?/);
    expect(issues.join('\n')).toMatch(/driver\.timeout: unknown key — did you mean 'timeoutS'\?/);
    expect(issues.join('\n')).toMatch(/flags\.DEVICE_MAMBA\.of: unknown key — did you mean 'o(n|ff)'\?/);
  });

  it('gate: no hypothesis is invalid; a misspelled one is an unknown key and a missing hypothesis', () => {
    const g = gate();
    delete g.hypothesis;
    expect(check('gates', 'g.json', g).join('\n')).toMatch(/hypothesis: an ab gate pre-registers its hypothesis/);
    const typo = gate();
    typo.hypothesys = typo.hypothesis;
    delete typo.hypothesis;
    const issues = check('gates', 'g.json', typo).join('\n');
    expect(issues).toMatch(/hypothesys: unknown key — did you mean 'hypothesis'\?/);
    expect(issues).toMatch(/hypothesis: an ab gate pre-registers/);
  });

  it('gate: "report": "only" is the one way to run an A/B without a hypothesis, and not beside one', () => {
    const g = gate();
    delete g.hypothesis;
    g.report = 'only';
    expect(check('gates', 'g.json', g)).toEqual([]);
    const both = gate();
    both.report = 'only';
    expect(check('gates', 'g.json', both).join('\n')).toMatch(/report: "only" judges nothing/);
  });

  it('profile: a regex that does not compile and a capture with no group are named at validate', () => {
    const profile = {
      name: 'x', prefix: '[x]',
      patterns: [
        { role: 'load', regex: '^{prefix} loaded in (?<loadS>[0-9.]+s', captures: { loadS: 'float' } },
        { role: 'tokenMatch', regex: '^{prefix} TOKEN MATCH: (?<matched>\\d+)/(?<compared>\\d+)', captures: { matched: 'int', compared: 'int', prompts: 'int' } },
      ],
    };
    const issues = check('profiles', 'p.json', profile).join('\n');
    expect(issues).toMatch(/patterns\.0\.regex: does not compile/);
    expect(issues).toMatch(/patterns\.1\.captures\.prompts: no named group \(\?<prompts>…\) in the regex; its groups: matched, compared/);
  });

  it('recipe: a probe regex that does not compile is named', () => {
    const r = recipe();
    r.probes[0].expect = 'cmake version (3';
    expect(check('recipes', 'r.json', r).join('\n')).toMatch(/probes\.0\.expect: does not compile/);
  });

  it('the helpers: edit distance, nearest key, keys through wrappers, named groups', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'ab')).toBe(2);
    expect(nearestKey('buildDirr', ['buildDir', 'build'])).toBe('buildDir');
    expect(nearestKey('TIMEOUTS', ['timeoutS'])).toBe('timeoutS');
    expect(nearestKey('zzzzzz', ['buildDir'])).toBeNull();
    expect(knownKeysAt(RecipeSchema, ['flags', 'ANY'])).toContain('requiresCells');
    expect(knownKeysAt(RecipeSchema, ['suites', 0])).toContain('filterArgv');
    expect(knownKeysAt(RecipeSchema, ['name'])).toEqual([]);
    expect(namedGroups('(?<a>x)(?<=y)(?<!z)(?<b_2>w)')).toEqual(['a', 'b_2']);
    expect(regexError('(')).toMatch(/Invalid regular expression/);
    expect(regexError('a+')).toBeNull();
  });
});

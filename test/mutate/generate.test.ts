import { describe, expect, it } from 'vitest';
import { defaultInDiffConfig, globRegExp, parseInDiffConfig } from '../../src/config/in-diff.js';
import { NhGateError } from '../../src/errors.js';
import { generateMutants, uniqueAnchorLines } from '../../src/mutate/generate/generate.js';
import { parseZeroContextDiff } from '../../src/mutate/generate/hunks.js';
import { maskSource } from '../../src/mutate/generate/mask.js';
import { isDeletableStatement, lineEdits } from '../../src/mutate/generate/operators.js';
import { functionScopes } from '../../src/mutate/generate/scope.js';
import { parseShard, shardRows } from '../../src/mutate/shard.js';
import { validateFile } from '../../src/config/validate.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMutation, countOccurrences } from '../../src/mutate/plan.js';

// Generation is pure: diff text + file text in, table-shaped rows out. No build, no git here.
const apply = (line: string, e: { start: number; end: number; text: string }): string => line.slice(0, e.start) + e.text + line.slice(e.end);
const mutate = (line: string): string[] => lineEdits(maskSource(line).code, line).map((e) => `${e.op}: ${apply(line, e).trim()}`);

function gen(text: string, lines: number[], over: Partial<ReturnType<typeof defaultInDiffConfig>> = {}, file = 'eng/src/a.cpp') {
  return generateMutants({
    changed: [{ file, lines }], allChangedFiles: [file, 'README.md'], sourceDirRel: 'eng', suites: [{ name: 'unit' }],
    config: { ...defaultInDiffConfig('r'), ...over }, readText: (f) => (f === file ? text : null),
  });
}

describe('git diff -U0 hunks', () => {
  it('takes the added/modified lines of the new file, drops deleted files and pure deletions', () => {
    const diff = [
      'diff --git a/eng/a.cpp b/eng/a.cpp', '--- a/eng/a.cpp', '+++ b/eng/a.cpp',
      '@@ -3 +3 @@ x', '-old', '+new', '@@ -10,0 +11,3 @@', '+a', '+b', '+c', '@@ -20,2 +22,0 @@', '-gone', '-gone',
      'diff --git a/eng/b.cpp b/eng/b.cpp', '--- a/eng/b.cpp', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-x', '-y',
      '--- a/eng/c.cpp', '+++ b/eng/c.cpp', '@@ -5,2 +4,0 @@', '-z', '-w',
      '--- a/"eng/\\303\\251.cpp"', '+++ "b/eng/\\303\\251.cpp"', '@@ -1 +1 @@', '-q', '+r',
    ].join('\n');
    expect(parseZeroContextDiff(diff)).toEqual([{ file: 'eng/a.cpp', lines: [3, 11, 12, 13] }, { file: 'eng/é.cpp', lines: [1] }]);
  });
});

describe('masking', () => {
  it('blanks comments and literal insides, keeps offsets and newlines', () => {
    const src = 'a < b; // x < y\nputs("p < q"); /* c\n< d */ e > f; char c = \'<\'; int n = 1\'000;\nR"(raw < )" ;';
    const m = maskSource(src);
    expect(m.code.length).toBe(src.length);
    expect(m.code.split('\n').length).toBe(src.split('\n').length);
    expect(m.code).not.toMatch(/x < y|p < q|< d|'<'|raw </);
    expect(m.code).toMatch(/a < b;/);
    expect(m.code).toMatch(/e > f;/);
    expect(m.code).toMatch(/1'000/);
    expect([...m.commentLines].sort()).toEqual([1, 2, 3]);
  });
});

describe('operators on one line', () => {
  it('flips relational operators, never template brackets, shifts or arrows', () => {
    const out = mutate('if (p->n < k && std::vector<int>{}.size() >= 2) x = y << 1;');
    expect(out).toContain('relational: if (p->n <= k && std::vector<int>{}.size() >= 2) x = y << 1;');
    expect(out).toContain('relational: if (p->n < k && std::vector<int>{}.size() > 2) x = y << 1;');
    expect(out.filter((o) => o.startsWith('relational'))).toHaveLength(2);
    expect(out).toContain('boolean: if (p->n < k || std::vector<int>{}.size() >= 2) x = y << 1;');
    expect(out).toContain('boolean: if (!(p->n < k && std::vector<int>{}.size() >= 2)) x = y << 1;');
    expect(mutate('a == b;')).toContain('relational: a != b;');
  });

  it('arithmetic flips only binary operators, not unary minus, pointers, ++ or compound assignment', () => {
    const out = mutate('const float a = std::exp(dt * -std::exp(w[h])); float* s = S + i; ++i;');
    expect(out).toContain('arithmetic: const float a = std::exp(dt / -std::exp(w[h])); float* s = S + i; ++i;');
    expect(out).toContain('arithmetic: const float a = std::exp(dt * -std::exp(w[h])); float* s = S - i; ++i;');
    expect(out.filter((o) => o.startsWith('arithmetic'))).toHaveLength(2);
    expect(mutate('x = 1e-5 + y;').filter((o) => o.startsWith('arithmetic'))).toEqual(['arithmetic: x = 1e-5 - y;']);
  });

  it('drops a term of a sum and the accumulated term of +=, but never a loop increment', () => {
    expect(mutate('s[n] = a * s[n] + dt * B[g * N + n] * xv;')).toEqual(expect.arrayContaining([
      'drop-term: s[n] = dt * B[g * N + n] * xv;', 'drop-term: s[n] = a * s[n];',
    ]));
    expect(mutate('acc += w[j];')).toContain('drop-accumulate: acc = w[j];');
    const loop = mutate('for (int c0 = 0; c0 < T; c0 += L) {');
    expect(loop.some((o) => o.startsWith('drop-accumulate'))).toBe(false);
    expect(loop).toContain('off-by-one: for (int c0 = 1; c0 < T; c0 += L) {');
    expect(loop).toContain('relational: for (int c0 = 0; c0 <= T; c0 += L) {');
  });

  it('swaps min and max, negates booleans, shifts integer literals but not floats', () => {
    const out = mutate('const int len = std::min(L, T - 1); bool ok = !done; float z = 0.5f;');
    expect(out).toContain('min-max: const int len = std::max(L, T - 1); bool ok = !done; float z = 0.5f;');
    expect(out).toContain('boolean: const int len = std::min(L, T - 1); bool ok = done; float z = 0.5f;');
    expect(out).toContain('off-by-one: const int len = std::min(L, T - 2); bool ok = !done; float z = 0.5f;');
    expect(out).toContain('off-by-one: const int len = std::min(L, T - 0); bool ok = !done; float z = 0.5f;');
    expect(out.some((o) => /0\.[46]f|1\.5f/.test(o))).toBe(false);
    expect(mutate('return true;')).toEqual(['boolean: return false;']);
  });

  it('deletes whole statements, not declarations, jumps or half expressions', () => {
    expect(isDeletableStatement('  s[n] = total * s[n] + add;')).toBe(true);
    expect(isDeletableStatement('  armCounters().rows += 1;')).toBe(true);
    expect(isDeletableStatement('  const int g = h / hpg;')).toBe(false);
    expect(isDeletableStatement('  std::vector<float> cum(L), dt(L);')).toBe(false);
    expect(isDeletableStatement('  return x;')).toBe(false);
    expect(isDeletableStatement('      b);')).toBe(false);
  });
});

describe('scopes', () => {
  it('knows which lines sit in a void function', () => {
    const code = maskSource('namespace n {\nvoid f(int a) {\n  x = 1;\n  if (a) {\n    y();\n  }\n}\nint g() {\n  return 1;\n}\n}\n').code;
    const s = functionScopes(code);
    expect(s.isVoid).toEqual([true, false]);
    expect([3, 5, 9].map((l) => s.fnOfLine[l])).toEqual([0, 0, 1]);
    expect(s.fnOfLine[1]).toBe(-1);
  });
});

describe('generateMutants', () => {
  const src = [
    '#include <cmath>',                      // 1
    'namespace e {',                         // 2
    'void step(float* s, int n) {',          // 3
    '  // a comment: i < n',                 // 4
    '  for (int i = 0; i < n; ++i) s[i] += 1;', // 5
    '  std::fprintf(stderr, "n=%d", n + 1);', // 6
    '  assert(n > 0);',                      // 7
    '  s[0] = s[0] + s[1];',                 // 8
    '}',                                     // 9
    'int twice(int x) { return x * 2; }',    // 10
    '  y = y + 1;',                          // 11
    '  y = y + 1;',                          // 12
    '}',                                     // 13
  ].join('\n');

  it('makes rows whose anchor occurs exactly once and whose replacement is the edit', () => {
    const { mutants, summary } = gen(src, [1, 4, 5, 6, 7, 8, 10], { perLineCap: 50 });
    expect(summary.skippedLines).toEqual({ COMMENT_OR_BLANK: 1, PREPROCESSOR: 1, LOGGING: 1, ASSERTION: 1 });
    expect(new Set(mutants.map((m) => m.origin.line))).toEqual(new Set([5, 8, 10]));
    for (const m of mutants) {
      expect(countOccurrences(src, m.mutation.anchor)).toBe(1);
      const out = applyMutation(src, m.mutation);
      expect(out.split('\n')[m.origin.line - 1]).toBe(m.origin.after);
      expect(m.mutation.id).toMatch(/^a\.cpp-L\d+-[a-z-]+-[0-9a-f]{8}$/);
      expect(m.mutation.suite).toBe('unit');
      expect(m.mutation.expect).toBe('caught');
    }
    const ops = mutants.map((m) => `${m.origin.line}:${m.origin.operator}`);
    expect(ops).toEqual(expect.arrayContaining(['5:relational', '5:off-by-one', '5:drop-accumulate', '8:drop-term', '8:arithmetic', '8:delete-statement', '10:arithmetic', '10:off-by-one']));
    expect(ops).toContain('5:early-return');
    expect(ops.filter((o) => o.endsWith('early-return'))).toHaveLength(1); // once per function
    expect(ops.some((o) => o.startsWith('10:early-return'))).toBe(false); // int twice(): a bare return would not compile
    expect(summary.ignoredFiles).toEqual(['README.md']);
  });

  it('caps per changed line (one of each family first) and per change (round-robin over lines), and says so', () => {
    const { mutants, summary } = gen(src, [5, 8, 10], { perLineCap: 2, perChangeCap: 5 });
    expect(summary.caps).toEqual({ perLine: 2, perChange: 5 });
    expect(mutants).toHaveLength(5);
    const byLine = (l: number) => mutants.filter((m) => m.origin.line === l).map((m) => m.origin.operator);
    expect(byLine(5)).toEqual(['relational', 'drop-accumulate']);
    expect(byLine(8).length + byLine(10).length).toBe(3);
    expect(summary.skippedMutants.OVER_LINE_CAP).toBeGreaterThan(0);
    expect(summary.skippedMutants.OVER_CHANGE_CAP).toBe(1);
    expect(summary.generated).toBe(5);
  });

  it('extends the anchor with context until it is unique, and skips by name when it never is', () => {
    const ls = [0];
    for (let i = 0; i < src.length; i++) if (src[i] === '\n') ls.push(i + 1);
    expect(uniqueAnchorLines(src, ls, 11)).toEqual({ from: 10, to: 11 });
    // The same 11 lines twice: 4 lines of context on each side still match both copies.
    const block = `${'q();\n'.repeat(5)}  y = y + 1;\n${'q();\n'.repeat(5)}`;
    const { mutants, summary } = gen(block + block, [6]);
    expect(mutants).toHaveLength(0);
    expect(summary.skippedMutants.ANCHOR_NOT_UNIQUE).toBeGreaterThan(0);
    expect(summary.notUnique).toEqual(['eng/src/a.cpp:6']);
    const ok = gen(src, [11]).mutants;
    expect(ok.length).toBeGreaterThan(0);
    for (const m of ok) expect(countOccurrences(src, m.mutation.anchor)).toBe(1);
  });

  it('routes files to suites by glob (first match wins), defaulting to every suite of the recipe', () => {
    const cfg = parseInDiffConfig(JSON.stringify({ schemaVersion: 1, recipe: 'r', routes: [{ files: 'eng/**/a.cpp', suite: 'unit', filter: 'Step*' }] }), 'in-diff.json');
    const routed = generateMutants({ changed: [{ file: 'eng/src/a.cpp', lines: [8] }], allChangedFiles: [], sourceDirRel: 'eng', suites: [{ name: 'unit' }, { name: 'other', kind: 'ctest' }], config: cfg, readText: () => src });
    expect(new Set(routed.mutants.map((m) => `${m.mutation.suite}:${m.mutation.filter}`))).toEqual(new Set(['unit:Step*']));
    // The report names the suite call in the suite's own filter syntax (doctest's by default).
    expect(routed.summary.files[0]!.suites).toEqual(['unit --test-case=Step*']);
    const ctestRoute = parseInDiffConfig(JSON.stringify({ schemaVersion: 1, recipe: 'r', routes: [{ files: 'eng/**', suite: 'other', filter: '^t$' }] }), 'in-diff.json');
    const viaCtest = generateMutants({ changed: [{ file: 'eng/src/a.cpp', lines: [8] }], allChangedFiles: [], sourceDirRel: 'eng', suites: [{ name: 'unit' }, { name: 'other', kind: 'ctest' }], config: ctestRoute, readText: () => src });
    expect(viaCtest.mutants[0]!.origin.judgedBy).toBe('other -R ^t$');
    const all = generateMutants({ changed: [{ file: 'eng/src/a.cpp', lines: [8] }], allChangedFiles: [], sourceDirRel: 'eng', suites: [{ name: 'unit' }, { name: 'other', kind: 'ctest' }], config: defaultInDiffConfig('r'), readText: () => src });
    expect(new Set(all.mutants.map((m) => m.mutation.suite))).toEqual(new Set(['unit', 'other']));
    expect(new Set(all.mutants.map((m) => m.mutation.id)).size).toBe(all.mutants.length);
    expect(globRegExp('eng/**/a.cpp').test('eng/a.cpp')).toBe(true);
    expect(globRegExp('eng/*.cpp').test('eng/src/a.cpp')).toBe(false);
  });

  it('generates nothing outside the sourceDir or for non-C/C++/CUDA files', () => {
    expect(gen(src, [8], {}, 'other/a.cpp').mutants).toHaveLength(0);
    expect(gen(src, [8], {}, 'eng/a.py').summary.files).toHaveLength(0);
    expect(gen(src, [8], {}, 'eng/k.cu').mutants.length).toBeGreaterThan(0);
  });
});

describe('in-diff config and shards', () => {
  it('refuses unknown keys and bad caps by file and field', () => {
    const bad = (o: object): string => {
      try { parseInDiffConfig(JSON.stringify({ schemaVersion: 1, recipe: 'r', ...o }), 'gates/x/in-diff.json'); } catch (e) { expect(e).toBeInstanceOf(NhGateError); return (e as Error).message; }
      throw new Error('accepted');
    };
    expect(bad({ perLineCap: 0 })).toMatch(/gates\/x\/in-diff\.json: perLineCap: /);
    expect(bad({ routes: [{ files: 'a', suite: 's', filtr: 'x' }] })).toMatch(/routes\.0\.filtr: unknown key — did you mean 'filter'\?/);
    expect(bad({ extra: 1 })).toMatch(/extra/);
  });

  it('nh-gate validate knows in-diff.json and names its bad fields', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nhg-val-'));
    const f = join(dir, 'in-diff.json');
    writeFileSync(f, JSON.stringify({ schemaVersion: 1, recipe: 'r', perChangeCap: -1 }));
    const r = validateFile(f, dir);
    expect(r.kind).toBe('in-diff');
    expect(r.issues.join('\n')).toMatch(/in-diff\.json: perChangeCap: /);
  });

  it('splits rows into N disjoint shards that cover them all; self-tests in every shard', () => {
    const rows = ['self', 'a', 'b', 'c', 'd', 'e'];
    const s = [1, 2, 3].map((k) => shardRows(rows, { k, n: 3 }, (r) => r === 'self'));
    expect(s).toEqual([['self', 'a', 'd'], ['self', 'b', 'e'], ['self', 'c']]);
    expect(parseShard('2/3')).toEqual({ k: 2, n: 3 });
    for (const t of ['0/2', '3/2', '1', 'a/b']) expect(() => parseShard(t)).toThrow(/--shard/);
  });
});

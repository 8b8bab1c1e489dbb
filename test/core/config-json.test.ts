import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ParseErrorCode } from 'jsonc-parser';
import { excerptAt, formatProblem, jsonParseProblem, syntaxProblem, lineColumn, MAX_DEPTH, nestingDepth, readJson, spotAt, spotOfPath } from '../../src/config/json.js';
import { checkConfig } from '../../src/config/load.js';

// A config's JSON text read with positions (issue 21): syntax errors with line:column, the offending text
// and a fix; duplicate keys naming both lines; NUL characters refused before they reach an argv.

function problem(text: string) {
  const r = readJson(text);
  if (r.ok) throw new Error(`expected a syntax problem for ${JSON.stringify(text)}`);
  return r.problem;
}

describe('syntax errors: line:column, the offending text, a fix', () => {
  // One broken text per kind of error jsonc-parser reports, with the message and fix a user gets.
  const SYMBOL = 'quote strings with "…"; a value is a string, a number (12, 0.5, 1e-3), true, false, null, {…} or […]';
  const cases: Array<[string, string, string, string]> = [
    ['{\n  "a": 1\n  "b": 2\n}', "not valid JSON: a ',' was expected before this", '3:3', "put a ',' between two entries"],
    ['{"a": 1,}', 'not valid JSON: a key was expected', '1:9', 'write keys in double quotes ("key": value), and put no comma after the last entry'],
    ['[1,]', 'not valid JSON: a value was expected', '1:4', 'write a value here, and put no comma after the last entry'],
    ['{"a" 1}', "not valid JSON: a ':' was expected after the key", '1:6', 'write "key": value'],
    ['{"a": [1, 2', "not valid JSON: the text ends too soon: a ']' was expected", '1:12', "close the array with ']', or put a ',' before the next element"],
    ['{"a": [1, 2}', "not valid JSON: a ',' was expected before this", '1:12', "put a ',' between two entries"],
    ['{"a": 1}}', 'not valid JSON: text after the end of the document', '1:9', 'a config is one JSON value: remove what follows it'],
    ['{"a": 1 /* why */}', 'not valid JSON: a comment', '1:9', 'JSON has no comments: remove it (recipes and gates have a "description" field)'],
    ['{"a": 1 // why\n}', 'not valid JSON: a comment', '1:9', 'JSON has no comments: remove it (recipes and gates have a "description" field)'],
    ['{"a": "x', 'not valid JSON: a string that never closes', '1:7', 'end the string with "'],
    ['{"a": 1.}', 'not valid JSON: a number that ends too soon', '1:7', 'write the digits after the "." or the exponent'],
    ['{"a": 1e}', 'not valid JSON: a number that ends too soon', '1:7', 'write the digits after the "." or the exponent'],
    ['{"a": "\\u12"}', 'not valid JSON: a bad \\u escape', '1:7', 'write \\u and four hex digits'],
    ['{"a": "C:\\dir"}', 'not valid JSON: a bad escape', '1:7', 'escape only \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX (a backslash is written \\\\)'],
    ['{"a": "x\ty"}', 'not valid JSON: a control character inside a string', '1:7', 'write a tab as \\t and a newline as \\n inside strings'],
    ["{'a': 1}", 'not valid JSON: unexpected text', '1:2', SYMBOL],
    ['{"a": NaN}', 'not valid JSON: unexpected text', '1:7', SYMBOL],
    ['{"a": -}', 'not valid JSON: unexpected text', '1:7', SYMBOL],
    ['{"a": 0x1F}', 'not valid JSON: unexpected text', '1:8', SYMBOL],
    ['', 'not valid JSON: the file is empty', '1:1', 'write the JSON document (the schemas are in schemas/)'],
    ['  \n ', 'not valid JSON: the file is empty', '2:2', 'write the JSON document (the schemas are in schemas/)'],
    ['\uFEFF{"a": 1}', 'not valid JSON: a byte-order mark (U+FEFF) starts the file', '1:1', 'save the file as UTF-8 without a byte-order mark'],
    ['{"a": 1', "not valid JSON: the text ends too soon: a '}' was expected", '1:8', "close the object with '}', or put a ',' before the next key"],
  ];
  for (const [text, message, at, fix] of cases) {
    it(`${JSON.stringify(text)} → ${message}`, () => {
      const p = problem(text);
      expect({ message: p.message, at: `${p.at.line}:${p.at.column}`, fix: p.fix, path: p.path }).toEqual({ message, at, fix, path: '(root)' });
    });
  }

  it('the excerpt is the line with a caret under the offending text', () => {
    expect(problem('{\n  "a": 1\n  "b": 2\n}').excerpt).toBe('  3 |   "b": 2\n    |   ^^^');
    expect(excerptAt('ab\ncdef\n', 4, 2)).toBe('  2 | cdef\n    |  ^^');
    // A caret never runs past the text shown; a zero-length error still gets one caret.
    expect(excerptAt('abc', 1, 50)).toBe('  1 | abc\n    |  ^^');
    expect(excerptAt('abc', 3, 0)).toBe('  1 | abc\n    |    ^');
    // CR line ends and tabs do not shift the caret.
    expect(excerptAt('x\r\n\tyz\r\n', 4, 1)).toBe('  2 |  yz\n    |  ^');
  });

  it('long lines are cut around the offending text', () => {
    const line = `${'a'.repeat(200)}X${'b'.repeat(200)}`;
    const ex = excerptAt(line, 200, 1).split('\n');
    expect(ex[0]).toBe(`  1 | ${'a'.repeat(59)}X${'b'.repeat(60)}`);
    expect(ex[1]).toBe(`    | ${' '.repeat(59)}^`);
  });

  it('spots are 1-based line and column', () => {
    expect(spotAt('ab\ncd\n\nef', 0)).toEqual({ line: 1, column: 1 });
    expect(spotAt('ab\ncd\n\nef', 2)).toEqual({ line: 1, column: 3 });
    expect(spotAt('ab\ncd\n\nef', 3)).toEqual({ line: 2, column: 1 });
    expect(spotAt('ab\ncd\n\nef', 7)).toEqual({ line: 4, column: 1 });
    expect(spotAt('ab\ncd\n\nef', 9)).toEqual({ line: 4, column: 3 });
    expect(lineColumn({ line: 4, column: 2 })).toBe('line 4, column 2');
  });

  it('a code the table does not know still names itself and points at the text', () => {
    const p = syntaxProblem('{"a": 1}', { error: 99 as ParseErrorCode, offset: 6, length: 1 });
    expect(p).toMatchObject({ message: 'not valid JSON: a syntax error (<unknown ParseErrorCode>)', at: { line: 1, column: 7 }, fix: 'fix the JSON syntax at the caret' });
  });

  it('JSON.parse is the authority: its own error keeps its position as line:column', () => {
    let err: Error | null = null;
    try {
      JSON.parse('{\n "a": 1,\n}');
    } catch (e) {
      err = e as Error;
    }
    const p = jsonParseProblem('{\n "a": 1,\n}', err!);
    expect(p.at).toEqual({ line: 3, column: 1 });
    expect(p.message).toBe('not valid JSON: Expected double-quoted property name');
    expect(p.fix).toBe('fix the JSON syntax at the caret');
    expect(jsonParseProblem('x', new Error('Unexpected end of JSON input')).at).toEqual({ line: 1, column: 1 });
  });
});

describe('a well-formed document: duplicate keys and NUL characters are problems, the value is JSON.parse\'s', () => {
  it('a key written twice is named with both lines', () => {
    const r = readJson('{\n  "repeats": 4,\n  "order": "abba",\n  "repeats": 40\n}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({ repeats: 40, order: 'abba' });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ path: 'repeats', at: { line: 4, column: 3 }, message: "duplicate key 'repeats': written at line 2 and again at line 4; JSON keeps only the last", fix: "keep one of the two 'repeats' entries" });
    expect(formatProblem('g.json', r.problems[0]!)).toBe("g.json: repeats: duplicate key 'repeats': written at line 2 and again at line 4; JSON keeps only the last (line 4, column 3)\n  4 |   \"repeats\": 40\n    |   ^^^^^^^^^^^^^\n  fix: keep one of the two 'repeats' entries");
  });

  it('duplicates are found at any depth, inside arrays too; equal keys in different objects are not duplicates', () => {
    const r = readJson('{"a": {"x": 1, "y": 2}, "b": [{"x": 1}, {"x": 1, "x": 2}], "c": {"x": 1}}');
    expect(r.ok && r.problems.map((p) => p.path)).toEqual(['b.1.x']);
    const three = readJson('{"k": 1, "k": 2, "k": 3}');
    expect(three.ok && three.problems.map((p) => p.message)).toEqual([
      "duplicate key 'k': written at line 1 and again at line 1; JSON keeps only the last",
      "duplicate key 'k': written at line 1 and again at line 1; JSON keeps only the last",
    ]);
  });

  it('a NUL in a string or a key is refused with its path', () => {
    const r = readJson('{"argv": ["ok", "a\\u0000b"], "env": {"X\\u0000": "1"}, "n": null, "t": true}');
    expect(r.ok && r.problems.map((p) => [p.path, p.message, p.fix])).toEqual([
      ['argv.1', 'the string holds a NUL character (\\u0000)', 'remove the \\u0000: no argument, environment variable or path can hold one'],
      ['env.X\u0000', 'the key holds a NUL character (\\u0000)', 'remove the \\u0000: no argument, environment variable or path can hold one'],
    ]);
    expect(readJson('"\\u0000"').ok && (readJson('"\\u0000"') as { problems: unknown[] }).problems).toHaveLength(1);
    expect(readJson('{"a": "\\u0001 fine"}').ok && (readJson('{"a": "\\u0001 fine"}') as { problems: unknown[] }).problems).toEqual([]);
  });

  it('JSON numbers past the double range read as Infinity, which no schema takes', () => {
    const r = readJson('{"timeoutS": 1e999}');
    expect(r.ok && r.value).toEqual({ timeoutS: Infinity });
    expect(z.number().safeParse(Infinity).success).toBe(false);
  });

  it('the prototype of a value is never set by a "__proto__" key: it is an own key that a strict schema names', () => {
    const r = checkConfig('{"a": 1, "__proto__": {"polluted": true}}', 'x.json', z.strictObject({ a: z.number() }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]).toBe('x.json: __proto__: unknown key (known here: a) (line 1, column 10)');
  });
});

describe('nesting depth is bounded before anything recursive reads the text', () => {
  it('counts the deepest bracket, outside strings', () => {
    expect(nestingDepth('{"a": [1, {"b": [[]]}]}')).toEqual({ depth: 5, offset: 17 });
    expect(nestingDepth('"[[[[" ').depth).toBe(0);
    expect(nestingDepth('[] [] {}').depth).toBe(1);
  });

  it('a text nested past MAX_DEPTH is one problem, not a stack overflow', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const p = problem(deep);
    expect(p.message).toBe(`nested 100000 levels deep (a config nests a handful; at most ${MAX_DEPTH})`);
    expect(p.at).toEqual({ line: 1, column: MAX_DEPTH * 0 + 100_000 });
    expect(readJson('['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH)).ok).toBe(true);
    expect(readJson('['.repeat(MAX_DEPTH + 1) + ']'.repeat(MAX_DEPTH + 1)).ok).toBe(false);
  });
});

describe('a field issue carries the line and column of its key', () => {
  const text = '{\n  "driver": {\n    "timeoutS": -1\n  },\n  "list": [\n    1,\n    "x"\n  ]\n}';
  const r = readJson(text);
  const tree = r.ok ? r.tree : null;

  it('a written field points at its key; an element at itself; a missing one at its nearest written parent', () => {
    expect(spotOfPath(text, tree!, ['driver', 'timeoutS'])).toEqual({ line: 3, column: 5 });
    expect(spotOfPath(text, tree!, ['list', 1])).toEqual({ line: 7, column: 5 });
    expect(spotOfPath(text, tree!, ['driver', 'argv'])).toEqual({ line: 2, column: 3 });
    expect(spotOfPath(text, tree!, [])).toEqual({ line: 1, column: 1 });
    expect(spotOfPath(text, tree!, ['nope', 'deeper'])).toEqual({ line: 1, column: 1 });
  });

  it('checkConfig: schema issues with positions, document problems beside them, the syntax fix on its own', () => {
    const schema = z.strictObject({ driver: z.strictObject({ timeoutS: z.number().positive() }), list: z.array(z.number()) });
    const bad = checkConfig(text, 'r.json', schema);
    expect(bad).toEqual({ ok: false, fix: null, issues: [
      'r.json: driver.timeoutS: Too small: expected number to be >0 (line 3, column 5)',
      'r.json: list.1: Invalid input: expected number, received string (line 7, column 5)',
    ] });
    const dup = checkConfig('{"driver": {"timeoutS": 1}, "list": [], "list": []}', 'r.json', schema);
    expect(!dup.ok && dup.issues).toEqual(["r.json: list: duplicate key 'list': written at line 1 and again at line 1; JSON keeps only the last (line 1, column 41)\n  1 | {\"driver\": {\"timeoutS\": 1}, \"list\": [], \"list\": []}\n    |                                         ^^^^^^^^^^\n  fix: keep one of the two 'list' entries"]);
    const syntax = checkConfig('{"driver": }', 'r.json', schema);
    expect(syntax).toEqual({ ok: false, fix: 'write a value here, and put no comma after the last entry', issues: ['r.json: not valid JSON: a value was expected (line 1, column 12)\n  1 | {"driver": }\n    |            ^'] });
    expect(checkConfig('{"driver": {"timeoutS": 1}, "list": [2]}', 'r.json', schema)).toEqual({ ok: true, data: { driver: { timeoutS: 1 }, list: [2] } });
  });
});

import { createScanner, findNodeAtLocation, parseTree, ParseErrorCode, printParseErrorCode, SyntaxKind, type Node, type ParseError } from 'jsonc-parser';

// A config's JSON text, read with positions: a syntax error says line:column, shows the offending text and
// gives a fix; a key written twice is an error naming both lines (JSON.parse keeps the last in silence); a
// NUL character in any string or key is refused here, before it can reach an argv, an environment or a path
// (where Node throws). Why jsonc-parser (Microsoft's, the parser VS Code reads settings with): it gives the
// tree with node offsets and keeps every property, so duplicates and positions come without a hand-written
// parser. Its leniencies (comments, trailing commas) are turned off, and the value itself is still taken
// from JSON.parse, so what a config means is exactly what JSON says it means.

export interface Spot {
  line: number;
  column: number;
}

// One problem in a config's text: where, what, the line it is on (with a caret under it) and the fix.
export interface JsonProblem {
  at: Spot;
  path: string;
  message: string;
  excerpt: string;
  fix: string;
}

export type JsonRead = { ok: true; value: unknown; tree: Node; problems: JsonProblem[] } | { ok: false; problem: JsonProblem };

// Configs nest a handful of levels; a file nested deeper than this is refused before any recursive reader
// (the parser's own, zod's) can overflow the stack on it.
export const MAX_DEPTH = 128;

// What each syntax error means, and what to do about it.
// (With comments and trailing commas refused, jsonc-parser 3.3 reports no InvalidNumberFormat or
// UnexpectedEndOfComment: a bad number is InvalidSymbol or UnexpectedEndOfNumber, any comment InvalidCommentToken.)
const SYNTAX: Partial<Record<ParseErrorCode, [string, string]>> = {
  [ParseErrorCode.InvalidSymbol]: ['unexpected text', 'quote strings with "…"; a value is a string, a number (12, 0.5, 1e-3), true, false, null, {…} or […]'],
  [ParseErrorCode.PropertyNameExpected]: ['a key was expected', 'write keys in double quotes ("key": value), and put no comma after the last entry'],
  [ParseErrorCode.ValueExpected]: ['a value was expected', 'write a value here, and put no comma after the last entry'],
  [ParseErrorCode.ColonExpected]: ["a ':' was expected after the key", 'write "key": value'],
  [ParseErrorCode.CommaExpected]: ["a ',' was expected before this", "put a ',' between two entries"],
  [ParseErrorCode.CloseBraceExpected]: ["a '}' was expected", "close the object with '}', or put a ',' before the next key"],
  [ParseErrorCode.CloseBracketExpected]: ["a ']' was expected", "close the array with ']', or put a ',' before the next element"],
  [ParseErrorCode.EndOfFileExpected]: ['text after the end of the document', 'a config is one JSON value: remove what follows it'],
  [ParseErrorCode.InvalidCommentToken]: ['a comment', 'JSON has no comments: remove it (recipes and gates have a "description" field)'],
  [ParseErrorCode.UnexpectedEndOfString]: ['a string that never closes', 'end the string with "'],
  [ParseErrorCode.UnexpectedEndOfNumber]: ['a number that ends too soon', 'write the digits after the "." or the exponent'],
  [ParseErrorCode.InvalidUnicode]: ['a bad \\u escape', 'write \\u and four hex digits'],
  [ParseErrorCode.InvalidEscapeCharacter]: ['a bad escape', 'escape only \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX (a backslash is written \\\\)'],
  [ParseErrorCode.InvalidCharacter]: ['a control character inside a string', 'write a tab as \\t and a newline as \\n inside strings'],
};

// 1-based line and column of an offset.
export function spotAt(text: string, offset: number): Spot {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

// The line an offset is on, with a caret under the offending text (long lines cut around it).
export function excerptAt(text: string, offset: number, length: number): string {
  const { line, column } = spotAt(text, offset);
  const end = text.indexOf('\n', offset);
  const whole = text.slice(offset - column + 1, end === -1 ? text.length : end).replace(/\r$/, '');
  const from = Math.max(0, column - 60);
  const shown = whole.slice(from, from + 120).replace(/\t/g, ' ');
  const gutter = `${line} | `;
  const caret = '^'.repeat(Math.max(1, Math.min(length, shown.length - (column - 1 - from))));
  return `  ${gutter}${shown}\n  ${' '.repeat(gutter.length - 2)}| ${' '.repeat(column - 1 - from)}${caret}`;
}

// A syntax error as a problem; a code this table does not know still gets its name and the caret.
export function syntaxProblem(text: string, e: ParseError): JsonProblem {
  const [what, fix] = text.charCodeAt(e.offset) === 0xfeff
    ? ['a byte-order mark (U+FEFF) starts the file', 'save the file as UTF-8 without a byte-order mark']
    : text.trim() === '' ? ['the file is empty', 'write the JSON document (the schemas are in schemas/)'] : SYNTAX[e.error] ?? [`a syntax error (${printParseErrorCode(e.error)})`, 'fix the JSON syntax at the caret'];
  // At the end of the text the caret shows nothing: say the text was cut (a truncated write, a lost '}').
  const cut = e.offset >= text.trimEnd().length && text.trim() !== '' ? 'the text ends too soon: ' : '';
  return { at: spotAt(text, e.offset), path: '(root)', message: `not valid JSON: ${cut}${what}`, excerpt: excerptAt(text, e.offset, e.length), fix };
}

// The deepest nesting of the text, read with the scanner (no recursion); strings and comments do not count.
export function nestingDepth(text: string): { depth: number; offset: number } {
  const scanner = createScanner(text, true);
  let depth = 0;
  let max = { depth: 0, offset: 0 };
  for (let kind = scanner.scan(); kind !== SyntaxKind.EOF; kind = scanner.scan()) {
    if (kind === SyntaxKind.OpenBraceToken || kind === SyntaxKind.OpenBracketToken) {
      depth += 1;
      if (depth > max.depth) max = { depth, offset: scanner.getTokenOffset() };
    } else if (kind === SyntaxKind.CloseBraceToken || kind === SyntaxKind.CloseBracketToken) depth -= 1;
  }
  return max;
}

function pathText(path: readonly (string | number)[]): string {
  return path.length ? path.map(String).join('.') : '(root)';
}

function hasNul(s: unknown): boolean {
  return typeof s === 'string' && s.includes('\u0000');
}

// Duplicate keys and NUL characters, walked over the tree (depth is bounded before this runs).
function documentProblems(text: string, node: Node, path: (string | number)[], out: JsonProblem[]): void {
  const at = (n: Node, p: (string | number)[], message: string, fix: string): void => {
    out.push({ at: spotAt(text, n.offset), path: pathText(p), message, excerpt: excerptAt(text, n.offset, n.length), fix });
  };
  if (node.type === 'object') {
    const first = new Map<string, Node>();
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode) continue;
      const key = String(keyNode.value);
      const seen = first.get(key);
      if (seen) {
        const was = spotAt(text, seen.offset).line;
        at(prop, [...path, key], `duplicate key '${key}': written at line ${was} and again at line ${spotAt(text, prop.offset).line}; JSON keeps only the last`, `keep one of the two '${key}' entries`);
      } else first.set(key, prop);
      if (hasNul(key)) at(keyNode, [...path, key], 'the key holds a NUL character (\\u0000)', 'remove the \\u0000: no argument, environment variable or path can hold one');
      if (valueNode) documentProblems(text, valueNode, [...path, key], out);
    }
  } else if (node.type === 'array') {
    (node.children ?? []).forEach((c, i) => documentProblems(text, c, [...path, i], out));
  } else if (hasNul(node.value)) {
    at(node, path, 'the string holds a NUL character (\\u0000)', 'remove the \\u0000: no argument, environment variable or path can hold one');
  }
}

// JSON.parse's own error as a problem: its "position N" as line:column (the start when it names none).
export function jsonParseProblem(text: string, err: Error): JsonProblem {
  const offset = Number(/position (\d+)/.exec(err.message)?.[1] ?? 0);
  return { at: spotAt(text, offset), path: '(root)', message: `not valid JSON: ${err.message.replace(/ in JSON at position \d+.*$/, '')}`, excerpt: excerptAt(text, offset, 1), fix: 'fix the JSON syntax at the caret' };
}

// Reads a config's text: its value and the problems of a well-formed document, or its first syntax error.
export function readJson(text: string): JsonRead {
  const deep = nestingDepth(text);
  if (deep.depth > MAX_DEPTH) {
    return { ok: false, problem: { at: spotAt(text, deep.offset), path: '(root)', message: `nested ${deep.depth} levels deep (a config nests a handful; at most ${MAX_DEPTH})`, excerpt: excerptAt(text, deep.offset, 1), fix: 'flatten the document: this is not a config nh-gate reads' } };
  }
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors[0] || !tree) return { ok: false, problem: syntaxProblem(text, errors[0] ?? { error: ParseErrorCode.ValueExpected, offset: 0, length: 0 }) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Where the two parsers disagree (none found in 300,000 random texts), JSON.parse is the authority.
    return { ok: false, problem: jsonParseProblem(text, err as Error) };
  }
  const problems: JsonProblem[] = [];
  documentProblems(text, tree, [], problems);
  return { ok: true, value, tree, problems };
}

// Where a field is in the text: its key's line:column, or its nearest written ancestor's (a missing field).
export function spotOfPath(text: string, tree: Node, path: readonly PropertyKey[]): Spot {
  const segs = path.map((p) => (typeof p === 'number' ? p : String(p)));
  for (let n = segs.length; n >= 0; n--) {
    const node = findNodeAtLocation(tree, segs.slice(0, n));
    if (node) return spotAt(text, node.parent?.type === 'property' ? node.parent.offset : node.offset);
  }
  return spotAt(text, tree.offset);
}

// "line 12, column 5": the suffix every located config issue carries.
export function lineColumn(at: Spot): string {
  return `line ${at.line}, column ${at.column}`;
}

// A problem as the lines a user reads: `file: where: what (line, column)`, the excerpt, and the fix (left out
// where the fix is carried on its own, as an error's hint).
export function formatProblem(file: string, p: JsonProblem, withFix = true): string {
  return `${file}: ${p.path === '(root)' ? '' : `${p.path}: `}${p.message} (${lineColumn(p.at)})\n${p.excerpt}${withFix ? `\n  fix: ${p.fix}` : ''}`;
}

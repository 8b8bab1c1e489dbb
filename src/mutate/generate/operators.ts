// The mutation operators over one masked source line (comments and literals already blanked, see
// mask.ts). Each returns edits of the line; generate.ts turns them into table-shaped rows. Heuristic by
// design: a false positive compiles to VOID UNVIABLE (reported, counted apart), never to a false catch.

// The operator families, in the order a per-line cap takes them (one of each family first).
export const OPERATORS = [
  'relational', 'min-max', 'drop-term', 'drop-accumulate', 'arithmetic', 'boolean', 'off-by-one', 'delete-statement', 'early-return',
] as const;
export type OperatorName = (typeof OPERATORS)[number];

// One edit of a line: [start, end) of the line replaced by text, with the words a report prints.
export interface LineEdit {
  op: OperatorName;
  start: number;
  end: number;
  text: string;
  what: string;
}

const IDENT = /[A-Za-z0-9_]/;
const TYPES = new Set(['int', 'float', 'double', 'char', 'void', 'auto', 'bool', 'long', 'short', 'unsigned', 'signed', 'size_t', 'const', 'uint8_t', 'uint16_t', 'uint32_t', 'uint64_t', 'int8_t', 'int16_t', 'int32_t', 'int64_t', 'half', '__half', 'nv_bfloat16']);
const NOT_OPERAND_WORDS = new Set(['return', 'case', 'else', 'do', 'throw', 'sizeof', 'new', 'delete', 'co_return']);

function prevIndex(s: string, i: number): number {
  let j = i - 1;
  while (j >= 0 && s[j] === ' ') j--;
  return j;
}
function nextIndex(s: string, i: number): number {
  let j = i;
  while (j < s.length && s[j] === ' ') j++;
  return j;
}
function wordBefore(s: string, i: number): string {
  let j = i;
  while (j > 0 && IDENT.test(s[j - 1]!)) j--;
  return s.slice(j, i);
}

// Where the for-header's increment clause sits on this line, [start, end); mutating it mostly makes a hang.
export function forIncrement(s: string): [number, number] | null {
  const m = /\bfor\s*\(/.exec(s);
  if (!m) return null;
  let depth = 0;
  let semis = 0;
  let incStart = -1;
  for (let i = m.index + m[0].length - 1; i < s.length; i++) {
    const c = s[i]!;
    if (c === '(') depth++;
    else if (c === ')') { depth--; if (depth === 0) return incStart === -1 ? null : [incStart, i]; }
    else if (c === ';' && depth === 1 && ++semis === 2) incStart = i + 1;
  }
  return null;
}

// The for-header's parentheses on this line, [open, close], or null.
function forHeader(s: string): [number, number] | null {
  const m = /\bfor\s*\(/.exec(s);
  if (!m) return null;
  const open = m.index + m[0].length - 1;
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0) return [open, i];
  }
  return [open, s.length];
}

// Template brackets on the line (vector<float>, static_cast<int>, template <…>): never relational.
function templateBrackets(s: string): Set<number> {
  const at = new Set<number>();
  for (const m of s.matchAll(/(?:\b[A-Za-z_][\w:]*|\btemplate\s*)<([\w:\s,*&]*)>/g)) {
    const lt = m.index + m[0].indexOf('<');
    at.add(lt);
    at.add(m.index + m[0].length - 1);
  }
  return at;
}

// Whether the operator at i is binary: an operand ends right before it.
function binaryAt(s: string, i: number): boolean {
  const p = prevIndex(s, i);
  if (p < 0) return false;
  const c = s[p]!;
  if (c === ')' || c === ']') return true;
  if (!IDENT.test(c)) return false;
  const w = wordBefore(s, p + 1);
  if (NOT_OPERAND_WORDS.has(w)) return false;
  if (/^\d[\d.]*[eE]$/.test(w) || /\d\.\d*[eE]$/.test(s.slice(0, p + 1))) return false; // 1e-5
  return true;
}

// One operand around a binary operator at the same bracket depth: [start, end) of the term.
function termLeft(s: string, op: number): number {
  let depth = 0;
  let j = prevIndex(s, op);
  for (; j >= 0; j--) {
    const c = s[j]!;
    if (c === ')' || c === ']') depth++;
    else if (c === '(' || c === '[') { if (depth === 0) break; depth--; }
    else if (depth === 0 && c === '>' && s[j - 1] === '-') j--;
    else if (depth === 0 && c === ':' && s[j - 1] === ':') j--;
    else if (depth === 0 && '+-=,;?:<>&|!{}'.includes(c)) break;
  }
  return nextIndex(s, j + 1);
}
function termRight(s: string, op: number): number {
  let depth = 0;
  let j = op + 1;
  for (; j < s.length; j++) {
    const c = s[j]!;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') { if (depth === 0) break; depth--; }
    else if (depth === 0 && c === '-' && s[j + 1] === '>') j++;
    else if (depth === 0 && c === ':' && s[j + 1] === ':') j++;
    else if (depth === 0 && j > nextIndex(s, op + 1) && '+-=,;?:<>&|!{}'.includes(c)) break;
  }
  let e = j;
  while (e > op + 1 && s[e - 1] === ' ') e--;
  return e;
}

const REL: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=', '!=': '==' };
const MINMAX: Record<string, string> = { min: 'max', max: 'min', fmin: 'fmax', fmax: 'fmin', fminf: 'fmaxf', fmaxf: 'fminf' };

// Every candidate edit of one masked code line (not yet capped, not yet anchored).
// raw is the unmasked line (same length), used only for the words of `what`.
export function lineEdits(s: string, raw: string = s): LineEdit[] {
  const out: LineEdit[] = [];
  const tpl = templateBrackets(s);
  const inc = forIncrement(s);
  const inInc = (i: number): boolean => inc !== null && i >= inc[0] && i < inc[1];
  const header = forHeader(s);
  const bound = (i: number): string => (header !== null && i > header[0] && i < header[1] ? ' (loop bound)' : '');
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const two = s.slice(i, i + 2);
    // relational: boundary flips for ordering, negation for equality
    if ((two === '<=' || two === '>=') && s[i - 1] !== '<' && s[i - 1] !== '>' && s[i + 2] !== '>') {
      out.push({ op: 'relational', start: i, end: i + 2, text: REL[two]!, what: `${two} → ${REL[two]}${bound(i)}` });
      i++;
      continue;
    }
    if ((two === '==' || two === '!=') && s[i + 2] !== '=') {
      out.push({ op: 'relational', start: i, end: i + 2, text: REL[two]!, what: `${two} → ${REL[two]}` });
      i++;
      continue;
    }
    if ((c === '<' || c === '>') && !tpl.has(i) && !'<>=-'.includes(s[i - 1] ?? ' ') && !'<>='.includes(s[i + 1] ?? ' ') && binaryAt(s, i)) {
      out.push({ op: 'relational', start: i, end: i + 1, text: REL[c]!, what: `${c} → ${REL[c]}${bound(i)}` });
      continue;
    }
    // boolean
    if ((two === '&&' || two === '||') && s[i - 1] === ' ' && s[i + 2] === ' ') {
      const to = two === '&&' ? '||' : '&&';
      out.push({ op: 'boolean', start: i, end: i + 2, text: to, what: `${two} → ${to}` });
      i++;
      continue;
    }
    if (c === '!' && s[i + 1] !== '=') {
      out.push({ op: 'boolean', start: i, end: i + 1, text: '', what: 'negation removed' });
      continue;
    }
    // dropped += / -= term (never in a for-header's increment: that is a hang, not a defect)
    if ((two === '+=' || two === '-=') && !'+-*/%&|^<>=!'.includes(s[i - 1] ?? ' ') && !inInc(i)) {
      out.push({ op: 'drop-accumulate', start: i, end: i + 2, text: '=', what: `${two} → = (the accumulated term dropped)` });
      i++;
      continue;
    }
    // arithmetic, and the terms of a sum
    if ('+-*/'.includes(c) && s[prevIndex(s, i)] !== '"' && s[nextIndex(s, i + 1)] !== '"' && s[i + 1] !== '=' && s[i + 1] !== c && s[i - 1] !== c && !(c === '-' && s[i + 1] === '>') && !inInc(i) && binaryAt(s, i)) {
      if (c === '*' && (TYPES.has(wordBefore(s, i)) || (IDENT.test(s[i - 1] ?? ' ') && s[i + 1] === ' '))) continue; // float* p
      const to = { '+': '-', '-': '+', '*': '/', '/': '*' }[c]!;
      out.push({ op: 'arithmetic', start: i, end: i + 1, text: to, what: `${c} → ${to}` });
      if (c === '+' || c === '-') {
        const l = termLeft(s, i);
        const r = termRight(s, i);
        const opStart = prevIndex(s, i) + 1;
        if (l < opStart && r > i + 1) {
          out.push({ op: 'drop-term', start: opStart, end: r, text: '', what: `term '${raw.slice(nextIndex(s, i + 1), r)}' dropped` });
          if (c === '+') out.push({ op: 'drop-term', start: l, end: nextIndex(s, i + 1), text: '', what: `term '${raw.slice(l, opStart)}' dropped` });
        }
      }
      continue;
    }
  }
  for (const m of s.matchAll(/\b(?:std::)?(fminf|fmaxf|fmin|fmax|min|max)\s*(?=[(<])/g)) {
    const name = m[1]!;
    const at = m.index + m[0].indexOf(name);
    out.push({ op: 'min-max', start: at, end: at + name.length, text: MINMAX[name]!, what: `${name} → ${MINMAX[name]}` });
  }
  for (const m of s.matchAll(/\b(true|false)\b/g)) {
    out.push({ op: 'boolean', start: m.index, end: m.index + m[0].length, text: m[0] === 'true' ? 'false' : 'true', what: `${m[0]} → ${m[0] === 'true' ? 'false' : 'true'}` });
  }
  const ifm = /\bif\s*\(/.exec(s);
  if (ifm) {
    const open = ifm.index + ifm[0].length - 1;
    let depth = 0;
    for (let j = open; j < s.length; j++) {
      if (s[j] === '(') depth++;
      else if (s[j] === ')' && --depth === 0) {
        out.push({ op: 'boolean', start: open, end: j + 1, text: `(!${s.slice(open, j + 1)})`, what: 'if condition negated' });
        break;
      }
    }
  }
  for (const m of s.matchAll(/(?<![\w.'])(\d+)(?![\w.'])/g)) {
    if (inInc(m.index)) continue;
    const v = Number(m[1]);
    if (!Number.isSafeInteger(v)) continue;
    out.push({ op: 'off-by-one', start: m.index, end: m.index + m[0].length, text: String(v + 1), what: `${v} → ${v + 1}${bound(m.index)}` });
    if (v > 0) out.push({ op: 'off-by-one', start: m.index, end: m.index + m[0].length, text: String(v - 1), what: `${v} → ${v - 1}${bound(m.index)}` });
  }
  return out;
}

const DECL = /^(?:(?:const|static|constexpr|inline|volatile|unsigned|signed|thread_local)\s+)*[A-Za-z_][\w:]*(?:\s*<[^;]*>)?[\s*&]+[A-Za-z_]\w*\s*(?:=|\(|\{|;|\[|,)/;
const NOT_DELETABLE = /^(?:return|break|continue|case|default|goto|using|typedef|namespace|template|static_assert|else|do|asm)\b/;

// Whether a whole masked line is one statement that can be deleted: ends in ';', brackets balance,
// no braces, not a declaration (deleting one is a compile error, not a defect), not a jump.
export function isDeletableStatement(s: string): boolean {
  const t = s.trim();
  if (!t.endsWith(';') || t === ';' || /[{}]/.test(t) || NOT_DELETABLE.test(t) || DECL.test(t)) return false;
  let depth = 0;
  for (const c of t) {
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

// C/C++/CUDA source with comments and the insides of string and character literals blanked to spaces
// (newlines kept, so offsets and line numbers are the original's): an operator inside a comment or a
// string can then never be taken for code. Hand-written because a full C++ lexer is far more than the
// mutation operators need; what it must get right is pinned by test/mutate/generate.test.ts.

// The masked text, same length as the input, and which lines held a comment or a literal.
export interface Masked {
  code: string;
  commentLines: Set<number>;
}

const blank = (s: string): string => s.replace(/[^\n]/g, ' ');

// Masks comments (// and /* */), "strings", 'chars' and raw strings R"delim( ... )delim".
export function maskSource(text: string): Masked {
  let out = '';
  const commentLines = new Set<number>();
  let line = 1;
  let i = 0;
  const n = text.length;
  const take = (j: number, mask: boolean, comment: boolean): void => {
    const piece = text.slice(i, j);
    if (comment) {
      let l = line;
      commentLines.add(l);
      for (const ch of piece) if (ch === '\n') commentLines.add(++l);
    }
    out += mask ? blank(piece) : piece;
    for (const ch of piece) if (ch === '\n') line++;
    i = j;
  };
  while (i < n) {
    const c = text[i]!;
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      let j = text.indexOf('\n', i);
      if (j === -1) j = n;
      take(j, true, true);
    } else if (c === '/' && d === '*') {
      const j = text.indexOf('*/', i + 2);
      take(j === -1 ? n : j + 2, true, true);
    } else if (c === 'R' && d === '"' && !/[A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
      const open = text.indexOf('(', i + 2);
      const delim = open === -1 ? '' : text.slice(i + 2, open);
      const close = open === -1 ? -1 : text.indexOf(`)${delim}"`, open);
      const end = close === -1 ? n : close + delim.length + 2;
      out += 'R"';
      i += 2;
      take(end - 1, true, false);
      take(end, false, false);
    } else if (c === '"' || (c === "'" && !/[0-9A-Fa-f]/.test(text[i - 1] ?? ''))) {
      // A ' after a hex digit is a C++14 digit separator (1'000), not a character literal.
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += c;
      i += 1;
      take(Math.min(j, n), true, false);
      if (i < n && text[i] === c) take(i + 1, false, false);
    } else {
      take(i + 1, false, false);
    }
  }
  return { code: out, commentLines };
}

// Which function each line of a masked source sits in, and whether that function returns void:
// an early `return;` compiles only there. Braces are read from the masked text, so braces inside
// comments and strings never count.

// Per line (1-based index): the enclosing function's id (-1 outside any), and void-ness by id.
export interface Scopes {
  fnOfLine: number[];
  isVoid: boolean[];
}

const CONTROL = /^\s*(?:if|for|while|switch|catch|else|do|try)\b/;
const SCOPE = /\b(?:namespace|class|struct|union|enum|extern)\b/;

// Walks the masked code once, keeping a stack of open braces classified by the text before them.
export function functionScopes(code: string): Scopes {
  const lines = code.split('\n');
  const fnOfLine: number[] = new Array(lines.length + 1).fill(-1);
  const isVoid: boolean[] = [];
  const stack: { fn: number }[] = [];
  let boundary = 0;
  let line = 1;
  let lineStarted = false;
  const innermostFn = (): number => {
    for (let k = stack.length - 1; k >= 0; k--) if (stack[k]!.fn >= 0) return stack[k]!.fn;
    return -1;
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '\n') { line++; lineStarted = false; continue; }
    if (!lineStarted && c !== ' ' && c !== '\t') { fnOfLine[line] = innermostFn(); lineStarted = true; }
    if (c === '{') {
      const head = code.slice(boundary, i).replace(/\s+/g, ' ').trim();
      let fn = -1;
      if (head.includes('(') && !CONTROL.test(head) && !SCOPE.test(head.split('(')[0]!) && !/[=\[]\s*$/.test(head)) {
        fn = isVoid.length;
        isVoid.push(/(?:^|[\s*&])void\s+[\w:~]+\s*\(/.test(head) && !/\bvoid\s*\*/.test(head.split('(')[0]!));
      }
      stack.push({ fn });
      boundary = i + 1;
    } else if (c === '}') {
      stack.pop();
      boundary = i + 1;
    } else if (c === ';') boundary = i + 1;
  }
  return { fnOfLine, isVoid };
}

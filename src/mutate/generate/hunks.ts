// Reads `git diff -U0` text: for each file, the line numbers (1-based, in the new file) that the change
// added or modified. Pure; the git call lives in git.ts. Deleted lines leave nothing to mutate.

// One changed file: its repository-relative path and its changed lines in ascending order.
export interface ChangedFile {
  file: string;
  lines: number[];
}

// git quotes a path with unusual bytes as "a/p\303\251"; this undoes the C-style escapes it uses.
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  const bytes: number[] = [];
  const body = p.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') { bytes.push(...Buffer.from(c)); continue; }
    const n = body[++i]!;
    if (/[0-7]/.test(n)) { bytes.push(parseInt(body.slice(i, i + 3), 8)); i += 2; }
    else bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

// Parses a zero-context unified diff into the changed lines of each surviving (not deleted) file.
export function parseZeroContextDiff(diff: string): ChangedFile[] {
  const out: ChangedFile[] = [];
  let cur: ChangedFile | null = null;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++ ')) {
      const p = line.slice(4).trim();
      cur = p === '/dev/null' ? null : { file: unquote(p).replace(/^"?b\//, ''), lines: [] };
      if (cur) out.push(cur);
      continue;
    }
    const h = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (h && cur) {
      const start = Number(h[1]);
      const count = h[2] === undefined ? 1 : Number(h[2]);
      for (let k = 0; k < count; k++) cur.lines.push(start + k);
    }
  }
  return out.filter((f) => f.lines.length > 0).map((f) => ({ file: f.file, lines: [...new Set(f.lines)].sort((a, b) => a - b) }));
}

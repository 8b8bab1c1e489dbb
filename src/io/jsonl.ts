import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { z } from 'zod';

// A line of a JSONL file that was not a valid record: named and counted, never silently dropped.
export interface GarbageLine {
  lineNo: number;
  reason: string;
}

// One line judged against a schema: the record, or why it is garbage (blank lines are neither).
export function parseJsonlLine<S extends z.ZodType>(line: string, schema: S): { ok: true; value: z.infer<S> } | { ok: false; reason: string } | null {
  if (line.trim() === '') return null;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const r = schema.safeParse(json);
  if (r.success) return { ok: true, value: r.data };
  const i = r.error.issues[0];
  return { ok: false, reason: i ? `${i.path.map(String).join('.') || '(root)'}: ${i.message}` : 'invalid' };
}

// Every line of a JSONL text: valid records in order, every other line with its number and why.
export function parseJsonl<S extends z.ZodType>(text: string, schema: S): { records: z.infer<S>[]; garbage: GarbageLine[] } {
  const records: z.infer<S>[] = [];
  const garbage: GarbageLine[] = [];
  text.split('\n').forEach((line, i) => {
    const r = parseJsonlLine(line, schema);
    if (r === null) return;
    if (r.ok) records.push(r.value);
    else garbage.push({ lineNo: i + 1, reason: r.reason });
  });
  return { records, garbage };
}

// The same, streamed line by line from a file (memory stays flat whatever its size); throws the fs error
// (the caller names the file and the fix).
export async function readJsonlFile<S extends z.ZodType>(path: string, schema: S, visit: (record: z.infer<S>, lineNo: number) => void): Promise<GarbageLine[]> {
  statSync(path);
  const garbage: GarbageLine[] = [];
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const raw of rl) {
    lineNo += 1;
    const r = parseJsonlLine(raw, schema);
    if (r === null) continue;
    if (r.ok) visit(r.value, lineNo);
    else garbage.push({ lineNo, reason: r.reason });
  }
  return garbage;
}

import { NhGateError } from '../../errors.js';
import { formatZodIssues } from '../../config/load.js';
import { OracleDocSchema, type OracleDoc } from '../../config/vllmCppOracle.js';
import { ScanError, scanOracle } from './scan.js';

const SAME = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

const FIX = 'fix the file (or re-capture it with scripts/nemotron-h-oracle-capture.py --capture); nothing was written';

// Text of an oracle.json → its document, or a BAD_INPUT naming the file and field. Refuses what the engine's
// driver refuses (no golden array, zero entries, an empty id array, a non-numeric id) and, beyond it, a
// truncated file (the driver would read the entries before the cut and go on), a non-greedy or ragged
// golden, and any file the driver's key scanner would read differently from its JSON.
export function parseOracleText(text: string, file: string): OracleDoc {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new NhGateError('BAD_INPUT', `${file}: (root): not valid JSON (${(err as Error).message}); a truncated oracle.json is refused whole — the engine's driver would read the entries before the cut`, FIX);
  }
  const r = OracleDocSchema.safeParse(json);
  if (!r.success) throw new NhGateError('BAD_INPUT', formatZodIssues(file, r.error, OracleDocSchema).join('\n'), FIX);
  let scanned;
  try {
    scanned = scanOracle(text);
  } catch (err) {
    if (err instanceof ScanError) throw new NhGateError('BAD_INPUT', `${file}: the engine's driver refuses this file: ${err.message}`, FIX);
    throw err;
  }
  // zod rebuilds objects in its own key order; the open blocks keep the file's, so they write back as they came.
  const raw = json as { sampling: OracleDoc['sampling']; capture?: OracleDoc['capture'] };
  const doc: OracleDoc = { ...r.data, sampling: raw.sampling, ...(raw.capture !== undefined ? { capture: raw.capture } : {}) };
  const problems: string[] = [];
  for (const k of ['vllm', 'model', 'revision'] as const) {
    if (scanned[k] !== doc[k]) problems.push(`${k}: the driver reads ${JSON.stringify(scanned[k])}, the JSON says ${JSON.stringify(doc[k])}`);
  }
  if (scanned.entries.length !== doc.golden.length) problems.push(`golden: the driver reads ${scanned.entries.length} entr(ies), the JSON has ${doc.golden.length}`);
  doc.golden.forEach((e, i) => {
    const s = scanned.entries[i];
    if (s && !SAME(s.promptTokenIds, e.prompt_token_ids)) problems.push(`golden.${i}.prompt_token_ids: the driver reads other ids than the JSON holds`);
    if (s && !SAME(s.tokenIds, e.token_ids)) problems.push(`golden.${i}.token_ids: the driver reads other ids than the JSON holds`);
  });
  if (problems.length) {
    throw new NhGateError('BAD_INPUT', `${file}: the engine's driver (a key scanner, examples/nemotron_h_gen/main.cpp) would read this file differently from its JSON:\n${problems.map((p) => `${file}: ${p}`).join('\n')}`, 'keep key names out of string values (a prompt or text containing "token_ids" in quotes confuses the scanner); nothing was written');
  }
  return doc;
}

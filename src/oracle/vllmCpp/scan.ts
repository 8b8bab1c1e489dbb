// The way the engine's driver reads an oracle.json, re-stated (not copied) from
// examples/nemotron_h_gen/main.cpp @ a7671175 (ReadGolden, FindKey, ReadIntArrayAfter, ReadStringAfter,
// ReadBoolAfter). It is a key scanner, not a JSON parser: nh-gate runs it beside its JSON reading so a file
// the two would read differently is refused instead of judged against tokens the engine never compared.

// What the driver takes from the file.
export interface ScannedGolden {
  vllm: string;
  model: string;
  revision: string;
  // 1 recorded, 0 recorded as unrecorded, -1 the file does not say (the engine's own tri-state, #926).
  captureRecorded: 1 | 0 | -1;
  entries: { promptTokenIds: number[]; tokenIds: number[] }[];
}

// The engine's failure: its message, which it prints as "[nemotron-h] golden FAILED to parse: <message>".
export class ScanError extends Error {}

function findKey(s: string, key: string, from: number): number {
  return s.indexOf(`"${key}"`, from);
}

function intArrayAfter(s: string, key: string, from: number): { ids: number[]; end: number } {
  const k = findKey(s, key, from);
  if (k < 0) throw new ScanError(`golden: key "${key}" not found`);
  const open = s.indexOf('[', k);
  if (open < 0) throw new ScanError(`golden: "${key}" is not an array`);
  const close = s.indexOf(']', open);
  if (close < 0) throw new ScanError(`golden: "${key}" array is unterminated`);
  const ids: number[] = [];
  let i = open + 1;
  while (i < close) {
    while (i < close && ' \n\r\t,'.includes(s[i]!)) i++;
    if (i >= close) break;
    let j = i;
    if (s[j] === '-') j++;
    while (j < close && s[j]! >= '0' && s[j]! <= '9') j++;
    if (j === i) throw new ScanError(`golden: non-numeric entry in "${key}"`);
    // std::atoll then static_cast<int32_t>: the low 32 bits, signed.
    ids.push(Number(BigInt.asIntN(32, BigInt(s.slice(i, j)))));
    i = j;
  }
  return { ids, end: close + 1 };
}

function stringAfter(s: string, key: string, from: number): string {
  const k = findKey(s, key, from);
  if (k < 0) return '';
  const colon = s.indexOf(':', k);
  if (colon < 0) return '';
  const open = s.indexOf('"', colon);
  if (open < 0) return '';
  const close = s.indexOf('"', open + 1);
  if (close < 0) return '';
  return s.slice(open + 1, close);
}

function boolAfter(s: string, key: string, from: number): 1 | 0 | -1 {
  const k = findKey(s, key, from);
  if (k < 0) return -1;
  const colon = s.indexOf(':', k);
  if (colon < 0) return -1;
  const t = s.indexOf('true', colon), f = s.indexOf('false', colon), stop = s.indexOf(',', colon);
  const tOk = t >= 0 && (stop < 0 || t < stop), fOk = f >= 0 && (stop < 0 || f < stop);
  if (tOk && (!fOk || t < f)) return 1;
  return fOk ? 0 : -1;
}

// Reads the text as the driver does; throws ScanError where the driver refuses with exit 2.
export function scanOracle(s: string): ScannedGolden {
  const cap = findKey(s, 'capture', 0);
  const out: ScannedGolden = {
    vllm: stringAfter(s, 'vllm', 0), model: stringAfter(s, 'model', 0), revision: stringAfter(s, 'revision', 0),
    captureRecorded: cap >= 0 ? boolAfter(s, 'engine_config_recorded', cap) : -1, entries: [],
  };
  const arr = findKey(s, 'golden', 0);
  if (arr < 0) throw new ScanError('golden: no "golden" array');
  let cursor = arr;
  for (;;) {
    const p = findKey(s, 'prompt_token_ids', cursor);
    if (p < 0) break;
    const prompt = intArrayAfter(s, 'prompt_token_ids', p);
    const tokens = intArrayAfter(s, 'token_ids', prompt.end);
    if (prompt.ids.length === 0) throw new ScanError('golden: an entry has an EMPTY prompt_token_ids');
    if (tokens.ids.length === 0) throw new ScanError('golden: an entry has an EMPTY token_ids');
    out.entries.push({ promptTokenIds: prompt.ids, tokenIds: tokens.ids });
    cursor = tokens.end;
  }
  return out;
}

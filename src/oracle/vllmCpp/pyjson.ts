// JSON text the way the engine's golden writer produces it: Python's json.dump(doc, indent=2) followed by
// "\n" (scripts/nemotron-h-oracle-capture.py @ a7671175). Hand-written because JSON.stringify differs from
// Python in two ways that matter for byte-stability: non-ASCII characters (Python escapes them, ensure_ascii
// defaults on) and floats (Python writes 0.0 where JavaScript writes 0).

// Paths (dot-joined keys; array indices as numbers) whose numbers are Python floats even when integral.
export type FloatPaths = ReadonlySet<string>;

// Python's repr() of a finite float: shortest round-trip digits, exponent form below 1e-4 and from 1e16.
export function pyFloat(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${x}`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, expText] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.padEnd(exp + 1, '0').slice(0, exp + 1);
  const frac = digits.slice(exp + 1);
  return `${sign}${int}.${frac || '0'}`;
}

// A string as json.dumps writes it with ensure_ascii: everything outside space..'~' escaped as \uXXXX.
export function pyString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function write(v: unknown, path: string, floats: FloatPaths, depth: number): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return floats.has(path) || !Number.isInteger(v) ? pyFloat(v) : String(v);
  if (typeof v === 'string') return pyString(v);
  const pad = '  '.repeat(depth + 1), close = '  '.repeat(depth);
  const child = (k: string | number): string => (path === '' ? String(k) : `${path}.${k}`);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x, i) => pad + write(x, child(i), floats, depth + 1)).join(',\n')}\n${close}]`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${pad}${pyString(k)}: ${write(x, child(k), floats, depth + 1)}`).join(',\n')}\n${close}}`;
  }
  throw new Error(`cannot write a ${typeof v} as JSON`);
}

// The whole document, with the writer's trailing newline.
export function pyJsonDump(doc: unknown, floats: FloatPaths = new Set()): string {
  return write(doc, '', floats, 0) + '\n';
}

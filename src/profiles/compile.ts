import type { CaptureType, CaptureValue, KvFields, LinePattern, Profile, Role, TimeUnit } from './types.js';

// A pattern ready to run: the regex is built once per reader, not once per line.
export interface CompiledPattern {
  role: Role;
  re: RegExp;
  hints: string[] | null;
  captures: Record<string, CaptureType>;
  exclusive: boolean;
  unit: TimeUnit | null;
  countsFirstToken: boolean;
}

// Regex metacharacters in a prefix such as "[nemotron-h]" are literal text.
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Compiles a profile's patterns; a bad regex source throws a SyntaxError the loader turns into a named error.
export function compileProfile(profile: Profile): CompiledPattern[] {
  const prefix = escapeRegex(profile.prefix);
  return profile.patterns.map((p: LinePattern) => ({
    role: p.role,
    re: new RegExp(p.regex.replaceAll('{prefix}', prefix), p.flags ?? ''),
    hints: p.hint === undefined ? null : Array.isArray(p.hint) ? p.hint : [p.hint],
    captures: p.captures,
    exclusive: p.exclusive ?? true,
    unit: p.unit ?? null,
    countsFirstToken: p.countsFirstToken ?? false,
  }));
}

const NUMERIC = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

// "T=1 nd=1 gathers=0 init=[1]" → fields by NAME; numbers become numbers, anything else stays text.
export function parseKv(text: string): KvFields {
  const out: KvFields = {};
  for (const m of text.matchAll(/([^\s=]+)=(\S*)/g)) {
    const raw = m[2]!;
    out[m[1]!] = NUMERIC.test(raw) ? Number(raw) : raw;
  }
  return out;
}

// One capture, typed as the profile declares it; an absent optional group stays undefined.
export function typedCapture(type: CaptureType, raw: string | undefined): CaptureValue {
  if (raw === undefined) return undefined;
  switch (type) {
    case 'int':
      return /^[-+]?\d+$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
    case 'float':
      return NUMERIC.test(raw) ? Number(raw) : Number.NaN;
    case 'kv':
      return parseKv(raw);
    case 'string':
      return raw;
    default:
      throw new Error(`unknown capture type '${String(type)}'`);
  }
}

function hasAny(text: string, hints: readonly string[]): boolean {
  for (const h of hints) if (text.includes(h)) return true;
  return false;
}

// Runs the first matching exclusive pattern (and every non-exclusive one) over a line.
export function matchLine(compiled: readonly CompiledPattern[], text: string, visit: (role: Role, caps: Record<string, CaptureValue>, p: CompiledPattern) => void): void {
  for (const p of compiled) {
    // Stryker disable next-line ConditionalExpression: a hint only skips regexes that cannot match; dropping it is equivalent, only slower
    if (p.hints !== null && !hasAny(text, p.hints)) continue;
    const m = p.re.exec(text);
    if (!m) continue;
    const caps: Record<string, CaptureValue> = {};
    const groups = m.groups ?? {};
    for (const name in p.captures) {
      const type = p.captures[name]!;
      // kv text is handed over raw (as <name>Text): the reader parses it only when it has not seen that text.
      if (type === 'kv') caps[`${name}Text`] = groups[name];
      else caps[name] = typedCapture(type, groups[name]);
    }
    visit(p.role, caps, p);
    if (p.exclusive) return;
  }
}

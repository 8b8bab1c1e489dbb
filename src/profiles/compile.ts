import type { CaptureType, CaptureValue, KvFields, LinePattern, Profile, Role, TimeUnit } from './types.js';

// A pattern ready to run: the regex is built once per reader, not once per line.
export interface CompiledPattern {
  role: Role;
  re: RegExp;
  hints: string[] | null;
  captures: Record<string, CaptureType>;
  // The captures as [group, type, key in the visitor's record], built once: a key made per line cost more than the match.
  slots: ReadonlyArray<readonly [string, CaptureType, string]>;
  exclusive: boolean;
  unit: TimeUnit | null;
  countsFirstToken: boolean;
}

// Regex metacharacters in a prefix such as "[nemotron-h]" are literal text.
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Compiles a profile's patterns; a bad regex source throws a SyntaxError the loader turns into a named error.
// Compiled once per profile object (a reader per leg, and a leg reader is made before the driver starts): a
// pattern without the stateful g or y flag keeps no state between matches, so one compiled set serves every
// reader; one with them is compiled per reader.
const compiledOf = new WeakMap<Profile, CompiledPattern[]>();
export function compileProfile(profile: Profile): CompiledPattern[] {
  const known = compiledOf.get(profile);
  if (known) return known;
  const compiled = compilePatterns(profile);
  if (compiled.every((p) => !p.re.global && !p.re.sticky)) compiledOf.set(profile, compiled);
  return compiled;
}

function compilePatterns(profile: Profile): CompiledPattern[] {
  const prefix = escapeRegex(profile.prefix);
  return profile.patterns.map((p: LinePattern) => ({
    role: p.role,
    re: new RegExp(p.regex.replaceAll('{prefix}', prefix), p.flags ?? ''),
    hints: p.hint === undefined ? null : Array.isArray(p.hint) ? p.hint : [p.hint],
    captures: p.captures,
    // kv text is handed over raw (as <name>Text): the reader parses it only when it has not seen that text.
    slots: Object.entries(p.captures).map(([name, type]) => [name, type, type === 'kv' ? `${name}Text` : name] as const),
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

// What one line matched: each pattern that ran with its typed captures, in profile order.
export type LineMatch = ReadonlyArray<readonly [CompiledPattern, Readonly<Record<string, CaptureValue>>]>;

// Every hint of the patterns as one regex: a line that holds none of them (most of an engine's lines that
// no pattern reads) is told so by one scan, instead of one `includes` per hint. null: no pattern has a hint.
export function anyHintOf(compiled: readonly CompiledPattern[]): RegExp | null {
  // Stryker disable next-line ArrayDeclaration: an extra hint only makes the combined one match more lines: equivalent, only slower
  const hints = compiled.flatMap((p) => p.hints ?? []);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: new RegExp('') matches every line, as null says: equivalent
  return hints.length > 0 ? new RegExp(hints.map(escapeRegex).join('|')) : null;
}

// The first matching exclusive pattern (and every non-exclusive one before it) over a line. `anyHint`
// (anyHintOf the same patterns) may say first that no hint is in the line, so no hinted pattern can match.
export function matchesOf(compiled: readonly CompiledPattern[], text: string, anyHint: RegExp | null = null): LineMatch {
  const out: [CompiledPattern, Record<string, CaptureValue>][] = [];
  // Stryker disable next-line ConditionalExpression,LogicalOperator: the combined hint only skips patterns whose own hints would skip them; dropping it is equivalent, only slower
  const hinted = anyHint === null || anyHint.test(text);
  for (const p of compiled) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a hint only skips regexes that cannot match; dropping it is equivalent, only slower
    if (p.hints !== null && (!hinted || !hasAny(text, p.hints))) continue;
    const m = p.re.exec(text);
    if (!m) continue;
    const caps: Record<string, CaptureValue> = {};
    const groups = m.groups ?? {};
    for (const [name, type, key] of p.slots) caps[key] = type === 'kv' ? groups[name] : typedCapture(type, groups[name]);
    out.push([p, caps]);
    if (p.exclusive) break;
  }
  return out;
}

// Runs the first matching exclusive pattern (and every non-exclusive one) over a line.
export function matchLine(compiled: readonly CompiledPattern[], text: string, visit: (role: Role, caps: Record<string, CaptureValue>, p: CompiledPattern) => void): void {
  for (const [p, caps] of matchesOf(compiled, text)) visit(p.role, caps, p);
}

// matchesOf with the last `size` distinct lines remembered: a profile's regexes (flags i, m, s, u only) are
// pure, so a repeated line (an engine's per-step counters) matches as it did, found by === instead of by
// hints and regexes. The captures are shared between those lines: visitors read them, never write them.
export function memoMatcher(compiled: readonly CompiledPattern[], size = 8): (text: string) => LineMatch {
  const texts: string[] = [];
  // Each remembered text's last character: lines of one length that differ only at their end (an engine's
  // per-step counters) are told apart without comparing them whole.
  const lasts: number[] = [];
  const matches: LineMatch[] = [];
  const anyHint = anyHintOf(compiled);
  let next = 0;
  return (text) => {
    const last = text.charCodeAt(text.length - 1);
    for (let i = 0; i < texts.length; i++) if (lasts[i] === last && texts[i] === text) return matches[i]!;
    const m = matchesOf(compiled, text, anyHint);
    // An own copy of the text: a slice would keep its whole read chunk alive.
    const own = (' ' + text).slice(1);
    if (texts.length < size) {
      texts.push(own);
      lasts.push(last);
      matches.push(m);
    } else {
      texts[next] = own;
      lasts[next] = last;
      matches[next] = m;
      next = (next + 1) % size;
    }
    return m;
  };
}

import * as z from 'zod';

// A leg log names what it is: a first line says which profile, mode, golden and events file the leg
// used, a last line how the driver ended. `analyze --log` of a leg log reads both and re-judges the
// leg through the same function the leg used, so the two can never disagree.

const HEADER = '#nh-gate leg ';
const TRAILER = '#nh-gate end ';
const LINE = '#nh-gate line ';

export const LegLogHeaderSchema = z.strictObject({
  schemaVersion: z.literal(1),
  profile: z.string().min(1),
  recipe: z.string().nullable(),
  mode: z.string().min(1),
  golden: z.string().nullable().describe('absolute path of the golden the leg was judged against'),
  events: z.string().nullable().describe('events file, relative to the log'),
  deviceClaim: z.boolean(),
  index: z.number().int().nonnegative(),
  arm: z.union([z.enum(['A', 'B', 'single']), z.templateLiteral([z.string(), '=', z.string()])]).describe("A, B, single, or a sweep arm named by flag and value ('THREADS=4')"),
  label: z.string(),
  requireWitness: z.literal('harness').optional().describe("the gate's \"witness\": \"harness\" (a pass from counters alone is VOID)"),
});

export const LegLogTrailerSchema = z.strictObject({
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  interrupted: z.boolean(),
  spawnError: z.string().nullable(),
  foreignPids: z.array(z.number().int()),
});

// What the live line splitter saw of the next line and the log cannot show: it was cut at the line cap,
// or its \r overwrites were collapsed. Written just before that line, so a re-read screens it the same way.
export const LegLogLineSchema = z.strictObject({
  truncatedChars: z.number().int().nonnegative().optional(),
  crOverwrites: z.number().int().nonnegative().optional(),
});

export type LegLogLine = z.infer<typeof LegLogLineSchema>;
export type LegLogHeader = z.infer<typeof LegLogHeaderSchema>;
export type LegLogTrailer = z.infer<typeof LegLogTrailerSchema>;

// One naming rule for a leg's files (log, events, samples, plots) and its Slurm job: the leg's number, its
// arm when the run compares arms, its mode — `leg-01-decode` (a3), `leg-02-B-decode` (ab). a3 once named
// its legs by mode and ab by arm, so no one pattern found both.
export function legFileBase(leg: { index: number; arm: string; mode: string }): string {
  return `leg-${String(leg.index + 1).padStart(2, '0')}${leg.arm === 'single' ? '' : `-${leg.arm}`}-${leg.mode}`;
}

// The header line of a leg log.
export function legHeaderLine(h: LegLogHeader): string {
  return HEADER + JSON.stringify(h);
}

// The trailer line of a leg log.
export function legTrailerLine(t: LegLogTrailer): string {
  return TRAILER + JSON.stringify(t);
}

// The line-hazard line of a leg log (see LegLogLineSchema).
export function legLineMetaLine(m: LegLogLine): string {
  return LINE + JSON.stringify(m);
}

// Whether a stored line is one of nh-gate's own (never offered to an engine profile).
export function isMetaLine(line: string): boolean {
  return line.startsWith('#nh-gate ');
}

// A header or trailer line parsed (zod at the boundary); null for any other line or a damaged one.
export function parseMetaLine(line: string): { header: LegLogHeader } | { trailer: LegLogTrailer } | { line: LegLogLine } | null {
  const json = (prefix: string): unknown => {
    try {
      return JSON.parse(line.slice(prefix.length));
    } catch {
      return undefined;
    }
  };
  if (line.startsWith(HEADER)) {
    const r = LegLogHeaderSchema.safeParse(json(HEADER));
    return r.success ? { header: r.data } : null;
  }
  if (line.startsWith(LINE)) {
    const r = LegLogLineSchema.safeParse(json(LINE));
    return r.success ? { line: r.data } : null;
  }
  if (line.startsWith(TRAILER)) {
    const r = LegLogTrailerSchema.safeParse(json(TRAILER));
    return r.success ? { trailer: r.data } : null;
  }
  return null;
}

import * as z from 'zod';
import { ROLES, TIME_UNITS } from '../profiles/types.js';
import { escapeRegex } from '../profiles/compile.js';
import { namedGroups, regexError } from './regex.js';

// A profile JSON file (a recipe may name one instead of a built-in): validated at the boundary only.
export const LinePatternSchema = z.strictObject({
  role: z.enum(ROLES),
  regex: z.string().min(1).describe('JS regex source with named groups; {prefix} is replaced by the escaped prefix'),
  flags: z.string().regex(/^[imsu]*$/, 'only the flags i, m, s, u').optional(),
  hint: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional().describe('literal (or any of several) the line must contain before the regex is tried'),
  captures: z.record(z.string(), z.enum(['int', 'float', 'string', 'kv'])).default({}),
  unit: z.enum(TIME_UNITS).optional().describe('engineTimer: the unit of the captured time (s, ms, us) unless a unit capture gives it per line'),
  countsFirstToken: z.boolean().optional().describe('engineTimer: the captured token count includes the first token, which costs no decode step'),
  exclusive: z.boolean().optional(),
});

export const ProfileSchema = z.strictObject({
  schemaVersion: z.literal(1).optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  prefix: z.string(),
  patterns: z.array(LinePatternSchema).min(1),
}).superRefine((p, ctx) => {
  // Each pattern compiles (with the prefix substituted) and every capture names a group of its regex.
  p.patterns.forEach((pat, i) => {
    const source = pat.regex.replaceAll('{prefix}', escapeRegex(p.prefix));
    const err = regexError(source, pat.flags ?? '');
    if (err) ctx.addIssue({ code: 'custom', path: ['patterns', i, 'regex'], message: `does not compile: ${err}` });
    const groups = namedGroups(pat.regex);
    for (const name of Object.keys(pat.captures)) {
      if (!groups.includes(name)) ctx.addIssue({ code: 'custom', path: ['patterns', i, 'captures', name], message: `no named group (?<${name}>…) in the regex${groups.length ? `; its groups: ${groups.join(', ')}` : ''}` });
    }
  });
});

export type ProfileFile = z.infer<typeof ProfileSchema>;

// Regexes in configs are compiled at the boundary (validate, load), so a typo is a named error there,
// never a crash or a silently unmatched line at run time.

// The compile error of a regex source, or null when it compiles.
export function regexError(source: string, flags = ''): string | null {
  try {
    new RegExp(source, flags);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

// The named groups a regex source declares: `(?<name>…)`, not the lookbehinds `(?<=` / `(?<!`.
export function namedGroups(source: string): string[] {
  return [...source.matchAll(/\(\?<([A-Za-z_$][\w$]*)>/g)].map((m) => m[1]!);
}

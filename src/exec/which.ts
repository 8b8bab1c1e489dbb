import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

// Where argv[0] would be found: a path (relative to cwd) as given, a bare name on PATH; null when nowhere.
export function whichProgram(program: string, cwd: string, pathEnv: string = process.env.PATH ?? ''): string | null {
  const candidates = program.includes('/') ? [isAbsolute(program) ? program : resolve(cwd, program)] : pathEnv.split(delimiter).filter(Boolean).map((d) => join(d, program));
  for (const c of candidates) {
    try {
      if (!statSync(c).isFile()) continue;
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* not here */
    }
  }
  return null;
}

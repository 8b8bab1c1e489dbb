import { NhGateError } from '../errors.js';

// The recipe placeholders (src/config/recipe.ts); each argv element is expanded on its own, so a value
// with spaces stays one argument and nothing is ever handed to a shell.
export type TemplateVars = Partial<Record<'root' | 'cwd' | 'sourceDir' | 'buildDir' | 'arch' | 'jobs' | 'checkpoint' | 'golden' | 'events' | 'runDir' | 'filter' | 'report' | 'port' | 'slots', string>>;

// Expands {name} in one string; an unknown or unset placeholder is a configuration error naming where.
export function expandString(s: string, vars: TemplateVars, where: string): string {
  return s.replace(/\{([a-zA-Z]+)\}/g, (_m, name: string) => {
    const v = (vars as Record<string, string | undefined>)[name];
    if (v === undefined) {
      const known = Object.keys(vars).filter((k) => (vars as Record<string, string | undefined>)[k] !== undefined);
      if (name === 'checkpoint') throw new NhGateError('USAGE', `${where}: the recipe needs {checkpoint} and none was given`, 'pass --checkpoint <the checkpoint file or snapshot directory the driver loads>');
      throw new NhGateError('BAD_CONFIG', `${where}: placeholder {${name}} has no value here`, `use one of {${known.join('} {')}} or remove it from the recipe`);
    }
    return v;
  });
}

// Expands every element of an argv array.
export function expandArgv(argv: readonly string[], vars: TemplateVars, where: string): string[] {
  return argv.map((a, i) => expandString(a, vars, `${where}[${i}]`));
}

import type { Command } from 'commander';
import { runAction } from '../run.js';
import { printJson } from '../output.js';

// What a file's references resolved to, after its name: ` → recipe recipes/nh-ref.json; golden …`.
function resolvedText(resolved: Record<string, string> | undefined): string {
  const parts = Object.entries(resolved ?? {}).map(([k, v]) => `${k} ${v}`);
  return parts.length ? ` → ${parts.join('; ')}` : '';
}

// Registers `nh-gate validate`: every recipe, gate, golden (and given file) against its schema, `file: field: message`.
export function register(program: Command): void {
  program
    .command('validate')
    .description('check recipes/, gates/ and goldens/ (or the given paths) against their schemas and resolve what they reference as a run would; prints file: path.to.field: message (line, column)')
    .argument('[paths...]', 'files or directories (default: recipes gates goldens)')
    .option('--json', 'print one JSON document on stdout')
    .action((paths: string[], opts: { json?: boolean }) =>
      runAction(async () => {
        const { collectFiles, validateFile } = await import('../../config/validate.js');
        const { PACKAGE_ROOT } = await import('../../analyze/profileNames.js');
        // No paths: this directory's project when it has one (recipes/, gates/ or goldens/), else nh-gate's own.
        const { existsSync } = await import('node:fs');
        const own = ['recipes', 'gates', 'goldens'].some((d) => existsSync(d));
        const root = paths.length > 0 || own ? process.cwd() : PACKAGE_ROOT;
        const files = collectFiles(paths, root);
        const results = files.map((f) => validateFile(f, root, paths.length > 0 ? undefined : root, PACKAGE_ROOT));
        const bad = results.filter((r) => r.issues.length > 0);
        if (opts.json) printJson({ files: results, ok: bad.length === 0 && files.length > 0 });
        else {
          for (const r of results) {
            if (r.issues.length === 0) process.stdout.write(`ok ${r.file} (${r.kind})${resolvedText(r.resolved)}\n`);
            else for (const i of r.issues) process.stdout.write(`${i}\n`);
          }
          process.stdout.write(`${results.length - bad.length} of ${results.length} file(s) valid\n`);
        }
        if (files.length === 0) {
          process.stderr.write('nh-gate: validate: no files found to check\n');
          return 'usage';
        }
        return bad.length > 0 ? 'usage' : 'passed';
      }),
    );
}

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What `nh-gate --help` / `--version` load, not how long they take (timing lives in bench/analyze-bench.mjs).
// Start-up once reached the zod schemas through one command file's import (analyze's profile names →
// config/profiles → every schema) and cold start went from 1.6× to 3.2× `node -e 0`. Registering commands
// must stay light: the work behind a command is imported in its action. The built binary is run (npm test
// builds first) with a module-loader hook that writes every ES module URL it loads to a file.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');
let dir = '';
let hook = '';

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'bundle', 'chunks.json'))) throw new Error('dist/ is not built: run `npm run build` (npm test does) before the CLI tests');
  dir = mkdtempSync(join(tmpdir(), 'nhg-cold-'));
  // The hooks run on the loader's own thread; each load is appended to the file the child's env names.
  const hooks = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.NHG_LOADED_FILE, url + '\\n');
  return next(url, context);
}`;
  writeFileSync(join(dir, 'hooks.mjs'), hooks);
  hook = join(dir, 'register.mjs');
  writeFileSync(hook, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  writeFileSync(join(dir, 'a.log'), '[nemotron-h] engine loaded in 1.0s\n[nemotron-h] STRICT PASS\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The modules one run of the built CLI loaded, as paths below the package root (node_modules/<pkg>/… for packages).
// A chunk of the bundle (dist/bundle/, scripts/bundle.mjs) stands for the modules it holds, as its build's
// metafile lists them: loading a chunk loads every module in it.
function loaded(args: string[], name: string): { code: number | null; modules: string[] } {
  const file = join(dir, `${name}.loaded`);
  writeFileSync(file, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NHG_LOADED_FILE: file } });
  const rootUrl = pathToFileURL(ROOT).href + '/';
  const files = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(rootUrl)).map((l) => l.slice(rootUrl.length));
  const chunks = JSON.parse(readFileSync(join(ROOT, 'dist', 'bundle', 'chunks.json'), 'utf8')) as Record<string, string[]>;
  return { code: r.status, modules: files.flatMap((f) => [f, ...(chunks[f] ?? [])]) };
}

// What start-up must not reach: the schemas and the packages behind the work of a command.
const HEAVY = [/^node_modules\/(zod|jsonc-parser|execa|vega|cli-table3|fast-xml-parser)\//, /^dist\/(config\/(?!nearest\.js$)|gates\/|quantity\/|report\/|results\/|exec\/(?!interrupt\.js$)|sampler\/|stats\/)/];
const heavy = (modules: string[]): string[] => modules.filter((m) => HEAVY.some((re) => re.test(m)));

describe('cold start: what --help and --version load', () => {
  it('the probe sees what a command loads: analyze reads a log through the zod schemas', () => {
    // Without this the test below could pass by seeing nothing at all.
    const r = loaded(['analyze', '--log', 'a.log', '--json'], 'analyze');
    expect(r.modules).toContain('dist/bundle/main.js'); // the bundle ran, not tsc's files beside it
    expect(r.modules).toContain('dist/cli/main.js');
    expect(r.modules.some((m) => m.startsWith('node_modules/zod/'))).toBe(true);
    expect(heavy(r.modules).length).toBeGreaterThan(0);
  });

  it.each([
    [['--version']],
    [['--help']],
    [['analyze', '--help']],
    [['ab', '--help']],
    [['serve', '--help']],
    [['validate', '--help']],
  ])('nh-gate %s registers every command without loading the schemas or any command’s work', (args) => {
    const r = loaded(args, args.join('-').replace(/^-+/, ''));
    expect(r.code).toBe(0);
    expect(r.modules).toContain('dist/bundle/main.js');
    expect(r.modules).toContain('dist/cli/main.js');
    expect(r.modules).toContain('dist/cli/commands/analyze.js');
    expect(heavy(r.modules)).toEqual([]);
  });
});

describe('the bundle keeps zod small', () => {
  // `import { z } from 'zod'` in any one module makes the bundler keep zod's whole namespace: every locale,
  // 755 KB parsed by every command that reads a config. `import * as z from 'zod'` keeps what is used.
  it('no zod locale but the default English one is bundled', () => {
    const chunks = JSON.parse(readFileSync(join(ROOT, 'dist', 'bundle', 'chunks.json'), 'utf8')) as Record<string, string[]>;
    const inputs = Object.values(chunks).flat();
    expect(inputs.some((m) => m.startsWith('node_modules/zod/'))).toBe(true);
    expect(inputs.filter((m) => /^node_modules\/zod\/v4\/locales\/(?!en\.js$)/.test(m))).toEqual([]);
  });
});

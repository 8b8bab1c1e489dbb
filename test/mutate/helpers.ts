import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, statSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Shared by the mutate tests: a throwaway git repository holding the C++ fixture, and the real CLI.
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURE = join(REPO, 'test', 'mutate', 'fixture');

// The CLI runs from dist/ (npm test builds it first); build it once here if a bare `vitest run` comes first.
export function ensureDist(): void {
  if (existsSync(join(REPO, 'dist', 'mutate', 'run.js')) && existsSync(join(REPO, 'dist', 'cli', 'commands', 'mutate.js'))) return;
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'ignore' });
  } catch {
    /* other areas' type errors do not stop emit; a missing file is caught by the check below */
  }
  if (!existsSync(join(REPO, 'dist', 'mutate', 'run.js'))) throw new Error('dist/mutate/run.js missing: run npm run build');
}

export interface FixtureRepo {
  root: string;
  table: Record<string, unknown> & { mutants: Record<string, unknown>[] };
  recipe: Record<string, unknown>;
}

// The CUDA fixture (one kernel file, one host file, a suite with a GPU case), for the device-code proofs.
export const CUDA_FIXTURE = join(REPO, 'test', 'mutate', 'cuda-fixture');

// A committed repository: engine/ (the fixture), recipes/mutfix.json, gates/mutations.json, .gitignore.
export function makeRepo(edit: (r: FixtureRepo) => void = () => {}, fixture = FIXTURE): FixtureRepo {
  const root = mkdtempSync(join(tmpdir(), 'nhg-mutate-'));
  cpSync(join(fixture, 'engine'), join(root, 'engine'), { recursive: true });
  const r: FixtureRepo = {
    root,
    table: JSON.parse(readFileSync(join(fixture, 'mutations.json'), 'utf8')),
    recipe: JSON.parse(readFileSync(join(fixture, 'recipe.json'), 'utf8')),
  };
  edit(r);
  writeJson(r);
  writeFileSync(join(root, '.gitignore'), '.nh-gate/\n');
  const git = (...args: string[]): void => { execFileSync('git', args, { cwd: root, stdio: 'ignore' }); };
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '-A');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'fixture');
  return r;
}

// Rewrites the repo's table and recipe after an edit (uncommitted: they are not in the engine tree).
export function writeJson(r: FixtureRepo): void {
  mkdirSync(join(r.root, 'recipes'), { recursive: true });
  mkdirSync(join(r.root, 'gates'), { recursive: true });
  r.table.recipe = `recipes/${String(r.recipe.name)}.json`;
  writeFileSync(join(r.root, 'recipes', `${String(r.recipe.name)}.json`), JSON.stringify(r.recipe, null, 2));
  writeFileSync(join(r.root, 'gates', 'mutations.json'), JSON.stringify(r.table, null, 2));
}

export interface CliRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

// Spawns `nh-gate mutate` in the repo; onStart gets the child (the signal tests kill it).
export function runMutateCli(root: string, args: string[], onStart?: (c: ChildProcess) => void): Promise<CliRun> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'nh-gate.js'), 'mutate', '--table', 'gates/mutations.json', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
    onStart?.(child);
  });
}

// git status --porcelain of the repo (empty = byte-identical to the commit, ignoring .nh-gate/).
export function gitStatus(root: string): string {
  return execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
}

// The newest mutate run directory of a recipe (.nh-gate/runs/<stamp>-mutate-<recipe>[-n]).
export function latestRunDir(root: string, recipe = 'mutfix'): string {
  const runs = join(root, '.nh-gate', 'runs');
  const re = new RegExp(`^\\d{8}T\\d{6}Z-mutate-${recipe.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(-\\d+)?$`);
  const dirs = readdirSync(runs).filter((d) => re.test(d)).sort((a, b) => statSync(join(runs, a)).mtimeMs - statSync(join(runs, b)).mtimeMs);
  if (dirs.length === 0) throw new Error(`no mutate run directory for ${recipe} under ${runs}`);
  return join(runs, dirs[dirs.length - 1]!);
}

// The JSON result the last run wrote.
export function readResult(root: string, recipe = 'mutfix'): { rows: { id: string; verdict: string; reason: string | null; matchesExpectation: boolean; mustFailCaseFailed: boolean | null; compileExit: number | null }[]; [k: string]: unknown } {
  return JSON.parse(readFileSync(join(latestRunDir(root, recipe), 'result.json'), 'utf8'));
}

// Polls until cond() holds (or throws after timeoutMs).
export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

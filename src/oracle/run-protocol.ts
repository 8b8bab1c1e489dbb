import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { execa } from 'execa';
import { findRecipe } from '../config/load.js';
import { buildVars } from '../build/build.js';
import { expandArgv, expandString } from '../build/template.js';
import { realExecutor } from '../exec/spawn.js';
import { describeEnd, exitedCleanly, lastLines } from '../exec/types.js';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { checkAnswer, goldenFromAnswers, promptsFromIds, type OracleAnswer, type OracleRequest } from './protocol.js';
import { diffGolden } from './diff.js';
import { fileExists } from './io.js';
import { renderProvenance, renderSmallestMargins } from './render.js';
import { checkGoldenName, committedPath, readGoldenFile, serializeGolden, stagedPath } from './store.js';
import { writeAtomic } from '../io/atomic.js';

// Normalized options of `golden capture --oracle-cmd …` / `golden capture --recipe R` (an engine as its own oracle).
export interface ProtocolCaptureRequest {
  root: string;
  name: string;
  oracleArgv: string[] | null; // null: take the recipe's driver in oracle mode
  recipe: string | null;
  promptIdsFile: string;
  maxNew: number;
  runs: number;
  nearTieNats: number;
  timeoutS: number;
  json: boolean;
}

const say = (s: string): void => { process.stdout.write(s + '\n'); };

// The recipe's driver argv plus its oracleArgv, after its prepare steps (e.g. writing the model) ran.
async function engineOracleArgv(req: ProtocolCaptureRequest): Promise<{ argv: string[]; env: Record<string, string>; label: string }> {
  // Found as a3 finds it; its relative paths and prepare steps run against its own root.
  const { recipe, path, root } = findRecipe(req.recipe!, req.root);
  if (!recipe.driver.oracleArgv) {
    throw new NhGateError('BAD_CONFIG', `${path}: driver.oracleArgv: recipe '${recipe.name}' does not say how its driver speaks the oracle protocol`, 'add driver.oracleArgv (e.g. ["--oracle"]), or capture from an independent oracle with --oracle-cmd');
  }
  const vars = buildVars(recipe, root, 'cpu', 1);
  const binary = expandString(recipe.driver.binary, vars, 'recipe.driver.binary');
  if (!fileExists(binary)) throw new NhGateError('UNREADABLE_FILE', `${binary} (recipe ${recipe.name} driver.binary) is not built`, `build it first: nh-gate build --recipe ${recipe.name}`);
  for (const [i, argvT] of recipe.prepare.entries()) {
    const run = await realExecutor.run({ argv: expandArgv(argvT, vars, `recipe.prepare[${i}]`), cwd: root, timeoutS: 600 });
    if (!exitedCleanly(run)) throw new NhGateError('BAD_INPUT', `recipe ${recipe.name} prepare step ${i + 1} failed (${describeEnd(run)}): ${lastLines(run, 3).join(' | ')}`, 'fix the prepare step');
  }
  return { argv: [...expandArgv(recipe.driver.argv, vars, 'recipe.driver.argv'), ...expandArgv(recipe.driver.oracleArgv, vars, 'recipe.driver.oracleArgv')], env: recipe.driver.env, label: `recipe ${recipe.name}` };
}

// One oracle run: the request on stdin, the answer on stdout. A hang, a crash or a bad answer throws, so
// nothing is staged from a partial capture.
async function runOracle(argv: string[], env: Record<string, string>, req: OracleRequest, timeoutS: number, who: string): Promise<OracleAnswer> {
  const [file, ...args] = argv;
  const r = await execa(file!, args, { input: JSON.stringify(req), env, reject: false, timeout: timeoutS * 1000, killSignal: 'SIGKILL', cwd: process.cwd() });
  const tail = String(r.stderr ?? '').split('\n').filter(Boolean).slice(-5).join(' | ');
  if (r.timedOut) throw new NhGateError('BAD_INPUT', `oracle ${who} ran past ${timeoutS} s and was killed; nothing was staged`, 'raise --oracle-timeout or fix the oracle');
  if (r.failed || r.exitCode !== 0) throw new NhGateError('BAD_INPUT', `oracle ${who} failed (${r.exitCode === undefined ? r.signal ?? 'did not start' : `exit ${r.exitCode}`}): ${tail || r.shortMessage}; nothing was staged`, 'run the oracle by hand with the same request to see why');
  let json: unknown;
  try {
    json = JSON.parse(String(r.stdout));
  } catch (err) {
    throw new NhGateError('BAD_INPUT', `oracle ${who}: stdout is not one JSON document (${(err as Error).message}); nothing was staged`, 'print only the answer on stdout; logs go to stderr');
  }
  return checkAnswer(json, req, who);
}

// `golden capture` through the oracle protocol: K runs, determinism cells, provenance, stage + review diff.
export async function runProtocolCapture(req: ProtocolCaptureRequest): Promise<ExitClass> {
  checkGoldenName(req.name);
  let raw: string;
  try {
    raw = await readFile(req.promptIdsFile, 'utf8');
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `prompt-ids file ${req.promptIdsFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'pass --prompt-ids with a JSON array of token-id arrays');
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new NhGateError('BAD_INPUT', `${req.promptIdsFile}: not JSON (${(err as Error).message})`, 'write a JSON array of token-id arrays');
  }
  const prompts = promptsFromIds(json, req.promptIdsFile);
  const request: OracleRequest = { schemaVersion: 1, prompts: prompts.map((p) => ({ id: p.id, promptTokens: p.promptTokens })), sampling: { kind: 'greedy', maxNewTokens: req.maxNew } };
  const who = req.oracleArgv ? { argv: req.oracleArgv, env: {}, label: req.oracleArgv.join(' ') } : await engineOracleArgv(req);
  const t0 = performance.now();
  const answers: OracleAnswer[] = [];
  for (let k = 0; k < req.runs; k++) answers.push(await runOracle(who.argv, who.env, request, req.timeoutS, who.label));
  const oracleS = (performance.now() - t0) / 1000;
  const golden = goldenFromAnswers({
    name: req.name, request, texts: new Map(prompts.filter((p) => p.text !== undefined).map((p) => [p.id, p.text!])), answers,
    origin: req.oracleArgv ? 'independent' : 'regression', nearTieNats: req.nearTieNats,
    capturedAt: new Date().toISOString(), capturedHost: hostname(), oracleArgv: who.argv,
  });
  const staged = stagedPath(req.root, req.name);
  writeAtomic(staged, serializeGolden(golden));
  const committed = await readGoldenFile(committedPath(req.root, req.name));
  const diff = diffGolden(committed, golden);
  if (req.json) {
    say(JSON.stringify({ schemaVersion: 1, staged, committed: committedPath(req.root, req.name), changed: diff.changed, diff: diff.lines, oracleS, golden }));
    return 'passed';
  }
  say(`[oracle] ${golden.oracle.name} ${golden.oracle.version}: ${prompts.length} prompt(s) x ${req.maxNew} tokens x ${req.runs} run(s) in ${oracleS.toFixed(2)} s`);
  if (golden.origin === 'regression') say('[oracle] REGRESSION golden: the engine under test was its own oracle — a pass against it means "unchanged", not "correct"');
  for (const l of renderProvenance(golden, staged)) say(l);
  say(`  determinism evidence: ${golden.determinism!.multiValuedCells} multi-valued cell(s) over ${req.runs} run(s)`);
  for (const l of renderSmallestMargins(golden, 5)) say(l);
  say('review against the committed golden:');
  for (const l of diff.lines) say(l);
  say(`STAGED, not accepted. After review: nh-gate golden accept ${req.name}`);
  return 'passed';
}

// Where relative paths in --oracle-cmd resolve: the current directory, like a shell.
export function splitOracleCmd(text: string): string[] {
  const argv = text.trim().split(/\s+/).filter(Boolean);
  if (argv.length === 0) throw new NhGateError('USAGE', '--oracle-cmd is empty', 'pass --oracle-cmd "PROGRAM ARGS…" (split on spaces, no shell)');
  return argv.map((a, i) => (i > 0 || !a.includes('/') ? a : resolve(a)));
}

// Which capture path a command line takes: an explicit oracle, a recipe whose driver speaks the protocol
// (the engine as its own oracle), or nh-ref's float64 oracle.
export function captureRoute(oracleCmd: string | null, recipe: string, root: string): 'oracle-cmd' | 'engine' | 'nh-ref' {
  if (oracleCmd !== null) return 'oracle-cmd';
  // A recipe this root does not hold is nh-ref's business (its path reports the error, or needs no recipe).
  try {
    return findRecipe(recipe, root).recipe.driver.oracleArgv ? 'engine' : 'nh-ref';
  } catch {
    return 'nh-ref';
  }
}

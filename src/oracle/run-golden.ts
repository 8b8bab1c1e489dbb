import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { findRecipe } from '../config/load.js';
import { buildVars } from '../build/build.js';
import { expandString } from '../build/template.js';
import { realExecutor } from '../exec/spawn.js';
import { describeEnd, lastLines } from '../exec/types.js';
import type { ExitClass } from '../errors.js';
import { NhGateError } from '../errors.js';
import { readCheckpoint } from './checkpoint.js';
import { buildModel } from './model.js';
import { ORACLE, captureGolden } from './capture.js';
import { diffGolden } from './diff.js';
import { fileExists, readPromptsFile } from './io.js';
import { DEFAULT_PROMPTS } from './prompts.js';
import { renderEvidence, renderProvenance, renderSmallestMargins } from './render.js';
import { acceptStaged, checkGoldenName, committedPath, readGoldenFile, serializeGolden, stagedPath } from './store.js';
import { writeAtomic } from '../io/atomic.js';

// Normalized options of `golden capture` (the CLI parses strings into these).
export interface CaptureRequest {
  root: string;
  recipe: string;
  preset: string;
  name: string;
  checkpoint: string | null;
  expectSha256: string | null;
  promptsFile: string | null;
  maxNew: number;
  runs: number;
  nearTieNats: number;
  crossCheck: boolean;
  json: boolean;
}

const say = (s: string): void => { process.stdout.write(s + '\n'); };
const progress = (s: string): void => { if (process.stderr.isTTY) process.stderr.write(`[oracle] ${s}\n`); };

// Without --checkpoint, the engine's own generator writes one (it refuses a sha that differs from its pin).
async function generateCheckpoint(req: CaptureRequest): Promise<string> {
  // The recipe's own root (its build lives there); the checkpoint and the golden go under req.root (the project).
  const { recipe, root } = findRecipe(req.recipe, req.root);
  const vars = buildVars(recipe, root, 'cpu', 1);
  const driver = resolve(root, expandString(recipe.driver.binary, vars, `recipe ${recipe.name} driver.binary`));
  const tool = join(dirname(driver), 'nh-ref-ckpt');
  if (!fileExists(tool)) {
    throw new NhGateError('UNREADABLE_FILE', `the checkpoint generator ${tool} is not built`, `build the engine first (nh-gate build --recipe ${recipe.name}) or pass --checkpoint FILE`);
  }
  const out = join(req.root, '.nh-gate', 'checkpoints', `${recipe.name}-${req.preset}.bin`);
  await mkdir(dirname(out), { recursive: true });
  const run = await realExecutor.run({ argv: [tool, '--preset', req.preset, '--out', out], timeoutS: 300 });
  if (run.exitCode !== 0) {
    throw new NhGateError('BAD_INPUT', `${tool} --preset ${req.preset} failed (${describeEnd(run)}): ${lastLines(run, 3).join(' | ')}`, 'fix the engine build or pass --checkpoint FILE');
  }
  return out;
}

// `golden capture`: run the oracle, stage the golden, print the review diff. Never touches goldens/.
export async function runCapture(req: CaptureRequest): Promise<ExitClass> {
  checkGoldenName(req.name);
  const prompts = req.promptsFile ? await readPromptsFile(req.promptsFile) : [...DEFAULT_PROMPTS];
  const ckPath = req.checkpoint ? resolve(req.checkpoint) : await generateCheckpoint(req);
  const t0 = performance.now();
  const ck = await readCheckpoint(ckPath, req.expectSha256 ?? undefined);
  if (ck.preset !== req.preset) {
    throw new NhGateError('BAD_INPUT', `checkpoint ${ckPath} header says preset "${ck.preset}", but --preset is "${req.preset}"`, 'pass the checkpoint of that preset, or the matching --preset');
  }
  const model = buildModel(ck);
  const { golden, evidence } = captureGolden(ck, model, {
    name: req.name, prompts, maxNew: req.maxNew, runs: req.runs, nearTieNats: req.nearTieNats, crossCheck: req.crossCheck,
    capturedAt: new Date().toISOString(), capturedHost: hostname(), onProgress: progress,
  });
  const oracleS = (performance.now() - t0) / 1000;
  const staged = stagedPath(req.root, req.name);
  writeAtomic(staged, serializeGolden(golden));
  const committed = await readGoldenFile(committedPath(req.root, req.name));
  const diff = diffGolden(committed, golden);
  if (req.json) {
    say(JSON.stringify({ schemaVersion: 1, command: 'golden capture', staged, committed: committedPath(req.root, req.name), changed: diff.changed, diff: diff.lines, evidence, oracleS, golden }));
    return 'passed';
  }
  say(`[oracle] ${ORACLE.name} ${ORACLE.version}: ${prompts.length} prompt(s) x ${req.maxNew} tokens x ${req.runs} run(s) in ${oracleS.toFixed(2)} s`);
  for (const l of renderProvenance(golden, staged)) say(l);
  for (const l of renderEvidence(evidence, req.runs)) say(l);
  for (const l of renderSmallestMargins(golden, 5)) say(l);
  say('review against the committed golden:');
  for (const l of diff.lines) say(l);
  say(diff.changed
    ? `STAGED, not accepted. After review: nh-gate golden accept ${req.name}`
    : `STAGED; nothing to accept beyond capture time/host (nh-gate golden accept ${req.name} would only refresh them)`);
  return 'passed';
}

// `golden accept <name>`: the only path by which goldens/<name>/golden.json changes.
export async function runAccept(root: string, name: string, json: boolean): Promise<ExitClass> {
  const { previous, accepted, unchanged } = await acceptStaged(root, name);
  const diff = diffGolden(previous, accepted);
  if (json) {
    say(JSON.stringify({ schemaVersion: 1, command: 'golden accept', accepted: committedPath(root, name), changed: !unchanged, diff: diff.lines }));
    return 'passed';
  }
  if (unchanged) {
    say(`UNCHANGED ${committedPath(root, name)}: the staged golden matches it (capture time and host aside); the committed file is kept byte for byte, staging cleared`);
    return 'passed';
  }
  for (const l of diff.lines) say(l);
  say(`ACCEPTED ${committedPath(root, name)} (checkpoint revision ${accepted.checkpoint.revision}); commit it with the change that needed it`);
  return 'passed';
}

// `golden show <name>`: provenance and the smallest margins of a committed (or staged) golden.
export async function runShow(root: string, name: string, staged: boolean, json: boolean, top: number): Promise<ExitClass> {
  checkGoldenName(name);
  const path = staged ? stagedPath(root, name) : committedPath(root, name);
  const g = await readGoldenFile(path);
  if (!g) {
    throw new NhGateError('UNKNOWN_GOLDEN', `no ${staged ? 'staged' : 'committed'} golden ${name} (${path} does not exist)`, staged ? `run nh-gate golden capture --name ${name}` : `capture and accept it, or check the name under ${join(root, 'goldens')}`);
  }
  if (json) {
    say(JSON.stringify({ schemaVersion: 1, command: 'golden show', path, golden: g }));
    return 'passed';
  }
  for (const l of [...renderProvenance(g, path), ...renderSmallestMargins(g, top)]) say(l);
  return 'passed';
}

// A throwaway project whose engine is test/hostile/witness-engine.mjs, driven through recipes exactly as a
// user's engine is (docs/engines.md): one recipe that declares an events file, one that declares none, one
// whose profile declares ids lines and an engine timer. nh-gate runs as users run it (bin → dist).
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FLOOD_GOLDEN } from '../../bench/flood-repo.mjs';
import { nhGate, resultsDir, runs, type CliRun } from '../faults/cli.js';

const ENGINE = join(import.meta.dirname, 'witness-engine.mjs');

// nh-ref's line shapes plus an ids role and llama.cpp's eval-time timer (what a third-party profile adds).
const IDS_PROFILE = {
  schemaVersion: 1, name: 'hostile-ids', prefix: '[nh-ref]',
  patterns: [
    { role: 'load', regex: String.raw`^{prefix}\s+engine loaded in\s+(?<loadS>\S+?)\s*s\b`, captures: { loadS: 'float' } },
    { role: 'ids', regex: String.raw`^{prefix}\s+prompt\s+(?<prompt>\d+)\s+ids:\s*(?<tokens>.*)$`, captures: { prompt: 'int', tokens: 'string' } },
    { role: 'engineTimer', regex: String.raw`^{prefix}\s+prompt\s+(?<prompt>\d+):\s+eval time\s*=\s*(?<time>[\d.]+)\s*(?<unit>ms|us|s)\s*/\s*(?<tokens>\d+)\s*tokens`, captures: { prompt: 'int', time: 'float', unit: 'string', tokens: 'int' }, countsFirstToken: true },
    { role: 'prompt', regex: String.raw`^{prefix}\s+prompt\s+(?<prompt>\d+):\s+prompt_tokens=(?<promptTokens>\d+)\s+generated=(?<generated>\d+)\s+golden_width=(?<goldenWidth>\d+)\s+compared=(?<compared>\d+)\s+matched=(?<matched>\d+)\s+wall=(?<wallS>\S+?)s\s*$`, captures: { prompt: 'int', promptTokens: 'int', generated: 'int', goldenWidth: 'int', compared: 'int', matched: 'int', wallS: 'float' } },
    { role: 'tokenMatch', regex: String.raw`^{prefix}\s+TOKEN MATCH:\s+(?<matched>\d+)/(?<compared>\d+)\s+over\s+(?<prompts>\d+)\s+prompt\(s\)(?:\s+\(full rows=(?<fullRows>\d+),\s+short rows=(?<shortRows>\d+)(?:,\s+mode=(?<mode>[\w-]+))?\)|$)`, captures: { matched: 'int', compared: 'int', prompts: 'int', fullRows: 'int', shortRows: 'int', mode: 'string' } },
    { role: 'verdict', regex: String.raw`^{prefix}\s+(?<kind>STRICT PASS|NEAR-TIE PASS|DIVERGENCE|REFUSING|SHORT)\s*$`, captures: { kind: 'string' } },
  ],
};

// events: nh-ref profile + events file; counters: nh-ref profile, nothing declared; ids: a profile with ids lines
// and an engine timer, no events; ids-events: that profile and an events file (as llama-server's recipe).
export type RecipeKind = 'events' | 'counters' | 'ids' | 'ids-events';

export interface HostileRepo {
  root: string;
  recipe(kind: RecipeKind): string;
  gate(kind: RecipeKind, extra: Record<string, unknown>): string;
}

// recipes/{events,counters,ids,ids-events}.json, goldens/g-flood, profiles/hostile-ids.json, the engine; env to the driver.
export function hostileRepo(env: Record<string, string>, timeoutS = 120): HostileRepo {
  const root = mkdtempSync(join(tmpdir(), 'nh-hostile-'));
  for (const d of ['recipes', 'gates', 'profiles', join('goldens', 'g-flood')]) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(ENGINE, join(root, 'engine.mjs'));
  chmodSync(join(root, 'engine.mjs'), 0o755);
  writeFileSync(join(root, 'goldens', 'g-flood', 'golden.json'), JSON.stringify(FLOOD_GOLDEN));
  writeFileSync(join(root, 'profiles', 'hostile-ids.json'), JSON.stringify(IDS_PROFILE, null, 2));
  const recipe = (kind: RecipeKind) => ({
    schemaVersion: 1, name: `hostile-${kind}`, profile: kind.startsWith('ids') ? 'profiles/hostile-ids.json' : 'nh-ref', sourceDir: '.', buildDir: 'build-{arch}',
    configure: ['true'], build: ['true'], archs: { cpu: {} },
    driver: {
      argv: ['node', '{root}/engine.mjs'], binary: '{root}/engine.mjs', goldenArgv: ['--golden', '{golden}'],
      eventsArgv: kind === 'counters' || kind === 'ids' ? [] : ['--events', '{events}'], env, timeoutS,
    },
    flags: {}, defaultGolden: 'g-flood',
  });
  for (const k of ['events', 'counters', 'ids', 'ids-events'] as const) writeFileSync(join(root, 'recipes', `${k}.json`), JSON.stringify(recipe(k), null, 2));
  return {
    root,
    recipe: (k) => join(root, 'recipes', `${k}.json`),
    gate: (k, extra) => {
      const path = join(root, 'gates', `${k}-a3.json`);
      writeFileSync(path, JSON.stringify({ schemaVersion: 1, kind: 'a3', name: `hostile-${k}`, recipe: `../recipes/${k}.json`, ...extra }, null, 2));
      return path;
    },
  };
}

export interface HostileA3 {
  run: CliRun;
  doc: Record<string, any>;
  leg: Record<string, any>;
  dir: string;
  runDir: string;
  text: (file: string) => string;
}

// `nh-gate a3 --json` on one case; the document, its leg and the run directory's files.
export async function hostileA3(kase: string, kind: RecipeKind, opts: { gate?: Record<string, unknown>; env?: Record<string, string>; timeoutS?: number; cliEnv?: Record<string, string> } = {}): Promise<HostileA3> {
  const repo = hostileRepo({ HOSTILE_CASE: kase, ...(opts.env ?? {}) }, opts.timeoutS);
  const dir = resultsDir();
  const target = opts.gate ? ['--gate', repo.gate(kind, opts.gate)] : ['--recipe', repo.recipe(kind)];
  const run = await nhGate(['a3', ...target, '--json'], dir, opts.cliEnv ?? {});
  if (/INTERNAL|\n\s+at /.test(run.stderr)) throw new Error(`nh-gate broke: ${run.stderr}`);
  const doc = JSON.parse(run.stdout);
  const runDir = runs(dir)[0]!.dir;
  return { run, doc, leg: doc.legs[0], dir, runDir, text: (f) => readFileSync(join(runDir, f), 'utf8') };
}

// A throwaway repo whose engine is test/faults/flood-driver.sh: shared by bench/flood.mjs and test/faults/.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

// The golden the flood driver's token lines match (two prompts, four tokens each).
export const FLOOD_GOLDEN = {
  schemaVersion: 1, name: 'g-flood', oracle: { name: 'o', version: '1' }, checkpoint: { name: 'c', revision: 'abc' },
  sampling: { kind: 'greedy', maxNewTokens: 4 }, capturedAt: 'now', capturedHost: 'h', engineConfigRecorded: 'yes',
  nearTie: { licensed: false, maxMarginNats: 0 }, determinism: { runs: 2, multiValuedCells: 0 },
  prompts: [
    { id: 0, promptTokens: [1, 2, 3], tokens: [10, 11, 12, 13], top2MarginNats: [1, 1, 1, 1] },
    { id: 1, promptTokens: [4, 5], tokens: [20, 21, 22, 23], top2MarginNats: [1, 1, 1, 1] },
  ],
};

// Creates recipes/flood.json + goldens/g-flood/golden.json + driver.sh under a fresh temp dir; env goes to the driver.
export function floodRepo(env = {}, timeoutS = 600) {
  const root = mkdtempSync(join(tmpdir(), 'nh-flood-'));
  mkdirSync(join(root, 'recipes'));
  mkdirSync(join(root, 'goldens', 'g-flood'), { recursive: true });
  copyFileSync(join(ROOT, 'test', 'faults', 'flood-driver.sh'), join(root, 'driver.sh'));
  writeFileSync(join(root, 'goldens', 'g-flood', 'golden.json'), JSON.stringify(FLOOD_GOLDEN));
  const recipe = {
    schemaVersion: 1, name: 'flood', profile: 'nh-ref', sourceDir: '.', buildDir: 'build-{arch}',
    configure: ['true'], build: ['true'], archs: { cpu: {}, '90': {} },
    driver: { argv: ['sh', '{root}/driver.sh'], binary: '{root}/driver.sh', env, timeoutS },
    flags: { FLAG: { env: 'FLOOD_FLAG', on: '1', off: '0', default: 'off' } },
    defaultGolden: 'g-flood',
  };
  writeFileSync(join(root, 'recipes', 'flood.json'), JSON.stringify(recipe, null, 2));
  return { root, recipePath: join(root, 'recipes', 'flood.json') };
}

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/engine.js';

// The shipped llama-cpp recipe with absolute paths, written into `dir` as NAME.json; its server behind the test
// proxy (fixtures/proxy.mjs) when `proxyArgs` are given. Shared by the serve and serve A/B tests.
export const PROXY = join(repoRoot, 'test', 'serve', 'fixtures', 'proxy.mjs');

export function serveRecipe(dir: string, name: string, proxyArgs: string[] | null): string {
  const r = JSON.parse(readFileSync(join(repoRoot, 'recipes', 'llama-cpp.json'), 'utf8'));
  r.name = name;
  r.sourceDir = join(repoRoot, r.sourceDir);
  r.buildDir = join(repoRoot, r.buildDir);
  r.profile = join(repoRoot, r.profile);
  r.prepare = [];
  r.defaultGolden = join(repoRoot, 'goldens', 'llama-cpp-tiny', 'golden.json');
  if (proxyArgs) {
    // The proxy adds --host/--port to the server it starts; the harness's {port} is the proxy's.
    const inner = r.serve.argv.filter((a: string, i: number, all: string[]) => !['--host', '--port'].includes(a) && !['--host', '--port'].includes(all[i - 1]!));
    r.serve.argv = ['node', PROXY, '--port', '{port}', ...proxyArgs, '--', ...inner];
  }
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(r));
  return file;
}

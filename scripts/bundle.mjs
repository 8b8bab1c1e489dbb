#!/usr/bin/env node
// The second half of `npm run build` (after tsc): bundles tsc's dist/cli/main.js and everything it imports
// into dist/bundle/, so `nh-gate` starts by loading a few files instead of ~200 modules (issue 25: cold start
// ≤ 1.5× `node -e 0`; an analyze's fixed cost). Each `await import()` of a command's work stays a chunk of
// its own (splitting), loaded only when that command runs: what --help loads is pinned by
// test/core/cold-start.test.ts through the metafile written beside the bundle (which module is in which chunk).
// The input is tsc's JS, not the TypeScript: the bundle runs the very code tsc emitted and type-checked.
//
//   node scripts/bundle.mjs       # after tsc -p tsconfig.build.json
import { build } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(ROOT, 'dist');
const OUT = join(DIST, 'bundle');

// A module that finds files beside itself (the package root, scripts/reaper.mjs, the slurm runner, the
// addon, package.json) reads import.meta.url. In a chunk that URL would be dist/bundle/<chunk>.js: each
// module's own is put back as the URL of its file in tsc's dist/, so every relative path resolves as it did.
const ownMetaUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
      const rel = relative(DIST, args.path).split('\\').join('/');
      return { contents: text.replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(`../${rel}`)}, import.meta.url).href`), loader: 'js' };
    });
  },
};

await rm(OUT, { recursive: true, force: true }); // no chunk of an earlier build is left to load
const result = await build({
  entryPoints: { main: join(DIST, 'cli', 'main.js') },
  absWorkingDir: ROOT,
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // ESM builds first: jsonc-parser's "main" is a UMD file whose require() calls a bundle cannot follow.
  mainFields: ['module', 'main'],
  // commander is CommonJS: its require('node:events') needs a require in an ES module chunk.
  banner: { js: "import { createRequire as __nhgRequire } from 'node:module'; const require = __nhgRequire(import.meta.url);" },
  plugins: [ownMetaUrl],
  metafile: true,
  logLevel: 'warning',
});
// Which inputs (dist/… and node_modules/… paths) each chunk holds, for the cold-start test.
const chunks = {};
for (const [out, o] of Object.entries(result.metafile.outputs)) chunks[relative(ROOT, join(ROOT, out)).split('\\').join('/')] = Object.keys(o.inputs).sort();
await writeFile(join(OUT, 'chunks.json'), JSON.stringify(chunks, null, 1) + '\n');

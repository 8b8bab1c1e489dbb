#!/usr/bin/env node
import { statSync } from 'node:fs';

// `npm run build` writes tsc's dist/ and then bundles it into dist/bundle/ (scripts/bundle.mjs): the bundle
// starts in a few files instead of ~200 modules. tsc's own dist/cli/main.js runs when the bundle is missing or
// older than it (a full tsc run since the last build), so a stale bundle does not run in place of new code.
// (`tsc --watch` rewrites only the files that changed: run `npm run build` after it.)
const at = (p) => new URL(p, import.meta.url);
let entry = '../dist/cli/main.js';
try {
  if (statSync(at('../dist/bundle/main.js')).mtimeMs >= statSync(at('../dist/cli/main.js')).mtimeMs) entry = '../dist/bundle/main.js';
} catch {
  /* no bundle: tsc's output */
}
const { main } = await import(entry);
await main(process.argv);

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// bin/nh-gate.js runs the bundle (dist/bundle/main.js, scripts/bundle.mjs) only while it is at least as new
// as tsc's dist/cli/main.js: a bare tsc run after `npm run build` must not leave yesterday's bundle answering
// for today's code. The real bin file is run beside two stand-in entries that say which one ran.
const BIN = resolve(import.meta.dirname, '../../bin/nh-gate.js');
let root = '';

function entry(rel: string, name: string, mtimeS: number): void {
  const file = join(root, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `export async function main(argv) { process.stdout.write(${JSON.stringify(name)} + ' ' + argv.slice(2).join(' ')); }\n`);
  utimesSync(file, mtimeS, mtimeS);
}
const run = (): string => spawnSync(process.execPath, [join(root, 'bin', 'nh-gate.js'), '--help'], { encoding: 'utf8', timeout: 60_000 }).stdout;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'nhg-bin-'));
  mkdirSync(join(root, 'bin'));
  copyFileSync(BIN, join(root, 'bin', 'nh-gate.js'));
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('bin/nh-gate.js: the bundle, unless tsc wrote newer code', () => {
  // [case, which one runs, tsc's dist/cli/main.js mtime, the bundle's mtime (null: none)]
  it.each([
    ['the bundle built after tsc’s output', 'bundle', 1_000, 2_000],
    ['the bundle built in the same instant as tsc’s output', 'bundle', 1_000, 1_000],
    ['a bundle older than tsc’s output (tsc ran alone since the build)', 'tsc', 2_000, 1_000],
    ['no bundle', 'tsc', 1_000, null],
  ] as const)('%s: runs %s', (_case, runs, tscS, bundleS) => {
    entry('dist/cli/main.js', 'tsc', tscS);
    if (bundleS !== null) entry('dist/bundle/main.js', 'bundle', bundleS);
    expect(run()).toBe(`${runs} --help`);
  });
});

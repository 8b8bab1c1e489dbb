import { describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';

// docs/use-from-project.md, run as written: nh-gate packed into a tarball and installed into a scratch
// project, where `npx nh-gate a3` must be STRICT PASS; and the same from a checkout (this one). Slow (an
// install and a fresh engine build), so it is one test.
const DOC = readFileSync(join(repoRoot, 'docs', 'use-from-project.md'), 'utf8');
const SH = [...DOC.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.trim().split('\n'));

// What a run needs from the package, and what must never ship (a build folder's CMakeCache names the packer's paths).
const NEEDED = ['bin/nh-gate.js', 'dist/cli/main.js', 'dist/bundle/main.js', 'native/engine/CMakeLists.txt', 'native/addon/CMakeLists.txt', 'recipes/nh-ref.json', 'goldens/nh-ref-tiny/golden.json', 'profiles/llama-server.json', 'drivers/llama-server.mjs', 'schemas/gate.json', 'docs/gates.md'];
const NEVER = /^native\/[^/]+\/build\/|^(\.nh-gate|node_modules|test|\.cache)\//;

async function project(name: string): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'nh-gate-user-')), name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  return dir;
}

const npm = (args: string[], cwd: string) => execa('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline'], { cwd, reject: false, all: true, timeout: 900_000 });

describe('use nh-gate from another project', () => {
  it('the page shows the commands this test runs', () => {
    expect(SH).toEqual([
      'npm ci && npm pack',
      'npm install ../nh-gate/nh-gate-0.1.0.tgz',
      'npx nh-gate a3',
      'git clone https://github.com/OWNER/nh-gate.git ../nh-gate && (cd ../nh-gate && npm ci)',
      'npm install ../nh-gate',
      'npx nh-gate a3',
    ]);
  });

  it('a packed tarball holds what a run needs and no build folder; installed into a project, `npx nh-gate a3` is STRICT PASS; so is a checkout', async () => {
    await ensureEngineBuilt(); // this checkout's own build, for the checkout route
    // `npm pack` (dist/ is built by `npm test`; --ignore-scripts keeps a pack from rewriting dist/ under other tests)
    const packDir = mkdtempSync(join(tmpdir(), 'nh-gate-pack-'));
    const pack = await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { cwd: repoRoot, reject: false, all: true });
    expect(pack.exitCode, pack.all).toBe(0);
    const tgz = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    expect(tgz).toMatch(/nh-gate-0\.1\.0\.tgz$/);
    const files = (await execa('tar', ['-tzf', tgz])).stdout.split('\n').map((f) => f.replace(/^package\//, ''));
    for (const f of NEEDED) expect(files, f).toContain(f);
    expect(files.filter((f) => NEVER.test(f))).toEqual([]);

    // the tarball route
    const user = await project('tarball-user');
    const inst = await npm(['install', tgz], user);
    expect(inst.exitCode, inst.all).toBe(0);
    const env = { ...process.env, NH_GATE_LOCK: join(user, 'gpu.lock') };
    const a3 = await execa('npx', ['nh-gate', 'a3'], { cwd: user, reject: false, all: true, env, timeout: 900_000 });
    expect(a3.exitCode, a3.all).toBe(0);
    expect(a3.stdout).toMatch(/^leg 1\/1 \[a3 decode\]: STRICT PASS — 128\/128 tokens[\s\S]*^STRICT PASS$/m);
    expect(readdirSync(join(user, '.nh-gate', 'runs')).length).toBe(1);
    expect(existsSync(join(user, 'node_modules', 'nh-gate', '.nh-gate', 'build'))).toBe(true);

    // the checkout route: a link to this (already `npm ci`-ed) checkout
    const linked = await project('checkout-user');
    const link = await npm(['install', repoRoot], linked);
    expect(link.exitCode, link.all).toBe(0);
    expect(lstatSync(join(linked, 'node_modules', 'nh-gate')).isSymbolicLink()).toBe(true);
    const a3b = await execa('npx', ['nh-gate', 'a3'], { cwd: linked, reject: false, all: true, env: { ...process.env, NH_GATE_LOCK: join(linked, 'gpu.lock') }, timeout: 600_000 });
    expect(a3b.exitCode, a3b.all).toBe(0);
    expect(a3b.stdout).toMatch(/^STRICT PASS$/m);
  }, 1_800_000);
});

import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
// @ts-expect-error plain ESM script without types (it runs before the TypeScript is built)
import { decide, doctestFound, TEST_NEEDS } from '../../scripts/prereq.mjs';
import { parseNeed, summarizeNeeds, needsTitle } from '../helpers/needs.js';
import { repoRoot } from '../helpers/engine.js';

const empty = mkdtempSync(path.join(tmpdir(), 'nh-prereq-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('npm test prerequisites (scripts/prereq.mjs)', () => {
  it('needs cmake, ninja, a C++ compiler, git and doctest', () => {
    expect(TEST_NEEDS).toEqual(['cmake', 'ninja', 'cxx', 'git', 'doctest']);
  });

  it('nothing missing: nothing to do', () => {
    expect(decide([], { uid: 1000, aptGet: true })).toEqual({ action: 'none' });
  });

  it('root with apt-get: installs the packages and says so in one line', () => {
    expect(decide(['doctest', 'ninja'], { uid: 0, aptGet: true })).toEqual({
      action: 'install',
      packages: ['doctest-dev', 'ninja-build'],
      line: "prereq: installing doctest-dev (the engine's doctest suites, run by npm test and nh-gate mutate), ninja-build (builds the reference engine)",
    });
  });

  it('a non-root user: stops at once, exit 2, naming the package and the command', () => {
    expect(decide(['doctest'], { uid: 1000, aptGet: true })).toEqual({
      action: 'stop',
      exitCode: 2,
      message: "prereq: the tests need doctest-dev (the engine's doctest suites, run by npm test and nh-gate mutate), which is not on this machine; this user cannot install packages, so no test ran: install it with: sudo apt-get install -y doctest-dev",
    });
  });

  it('root without apt-get: names the Debian command as an example, exit 2', () => {
    const d = decide(['cxx', 'cmake'], { uid: 0, aptGet: false });
    expect(d.action).toBe('stop');
    expect(d.message).toContain('install g++, cmake with your system\'s package manager (Debian/Ubuntu: apt-get install -y g++ cmake)');
  });

  it('doctest is found by its header under an include dir, or by its CMake config', () => {
    expect(doctestFound({ NH_GATE_PREREQ_ROOT: empty })).toBe(false);
    const inc = path.join(empty, 'inc');
    mkdirSync(path.join(inc, 'doctest'), { recursive: true });
    writeFileSync(path.join(inc, 'doctest', 'doctest.h'), '');
    expect(doctestFound({ NH_GATE_PREREQ_ROOT: empty, CMAKE_INCLUDE_PATH: inc })).toBe(true);
    const cfg = path.join(empty, 'cfg');
    mkdirSync(cfg);
    writeFileSync(path.join(cfg, 'doctestConfig.cmake'), '');
    expect(doctestFound({ NH_GATE_PREREQ_ROOT: empty, doctest_DIR: cfg })).toBe(true);
  });

  it('run for real by a non-root user on a machine without doctest: the one message, exit 2, nothing installed', async () => {
    const asRoot = process.getuid?.() === 0;
    const env = { PATH: process.env['PATH'] ?? '', NH_GATE_PREREQ_ROOT: empty };
    const node = process.execPath;
    const script = path.join(repoRoot, 'scripts', 'prereq.mjs');
    const r = asRoot
      ? await execa('runuser', ['-u', 'nobody', '--', node, script, 'doctest'], { env, extendEnv: false, reject: false })
      : await execa(node, [script, 'doctest'], { env, extendEnv: false, reject: false });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe("prereq: the tests need doctest-dev (the engine's doctest suites, run by npm test and nh-gate mutate), which is not on this machine; this user cannot install packages, so no test ran: install it with: sudo apt-get install -y doctest-dev");
  });
});

describe('skipped tests are counted with the command that builds what they need', () => {
  it('a ready need leaves the title alone; a missing one is marked and summed per need', () => {
    const need = { what: 'llama-server', ready: false, build: 'bash scripts/ci/llama-cpp.sh' };
    expect(needsTitle('x', { ...need, ready: true })).toBe('x');
    const t = needsTitle('x', need);
    expect(parseNeed(t)).toEqual({ what: 'llama-server', build: 'bash scripts/ci/llama-cpp.sh' });
    expect(parseNeed('plain title')).toBeNull();
    expect(summarizeNeeds([parseNeed(t)!, parseNeed(t)!, { what: 'the CUDA compile', build: 'NH_REF_CUDA_COMPILE=1 npm test' }])).toEqual([
      'skipped 2 tests that need llama-server: build it with `bash scripts/ci/llama-cpp.sh`',
      'skipped 1 test that needs the CUDA compile: build it with `NH_REF_CUDA_COMPILE=1 npm test`',
    ]);
  });
});

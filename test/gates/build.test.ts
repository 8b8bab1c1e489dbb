import { describe, expect, it, beforeAll } from 'vitest';
import { copyFileSync, mkdtempSync, writeFileSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readBuildLog, ninjaProgress, progressWriter } from '../../src/build/log.js';
import { expandArgv } from '../../src/build/template.js';
import { diagnoseFailure, buildExitClass } from '../../src/build/diagnose.js';
import { buildRecipe } from '../../src/build/build.js';
import { featureParserFor } from '../../src/build/features.js';
import { realExecutor } from '../../src/exec/spawn.js';
import { getProfile } from '../../src/config/profiles.js';
import { RecipeSchema } from '../../src/config/recipe.js';
import { NhGateError } from '../../src/errors.js';
import { PROBE_MEMO, probeKey, programIdentity, readProbeMemo } from '../../src/build/probeMemo.js';
import { whichProgram } from '../../src/exec/which.js';

describe('build log facts', () => {
  it('counts compile errors of gcc, nvcc and ld, ENOSPC hits, and ninja\'s no-work line', () => {
    const f = readBuildLog([
      '[1/3] Building CXX object a.o',
      'src/a.cpp:12:3: error: expected ; before }',
      'kernel.cu(40): error: identifier "x" is undefined',
      'collect2: error: ld returned 1 exit status',
      'src/b.cpp:1:10: fatal error: missing.h: No such file or directory',
      'note: an error-free line that mentions error handling',
      '/usr/bin/ld: final link failed: No space left on device',
      'FAILED: a.o',
      '[2/3] Linking',
    ]);
    expect(f.compileErrors).toBe(4);
    expect(f.enospcHits).toBe(1);
    expect(f.noWork).toBe(false);
    expect(f.stepsRun).toBe(2);
    expect(f.failedTargets).toEqual(['a.o']);
    expect(readBuildLog(['ninja: no work to do.']).noWork).toBe(true);
  });

  it('shows ninja progress: one rewritten line on a TTY, a plain line per twentieth of the steps elsewhere', () => {
    expect(ninjaProgress('[7/120] Building')).toEqual({ done: 7, total: 120 });
    const out: string[] = [];
    const tty = progressWriter(true, (s) => out.push(s));
    tty.line('[1/2] x'); tty.end();
    expect(out).toEqual(['\r[nh-gate build] 1/2', '\n']);
    const log: string[] = [];
    const pipe = progressWriter(false, (s) => log.push(s));
    for (let i = 1; i <= 100; i++) pipe.line(`[${i}/100] Building CXX object src/f${i}.cpp.o`);
    pipe.line('-- not a step'); pipe.end();
    expect(log).toHaveLength(21);
    expect(log[0]).toBe('[nh-gate build] 1/100 Building CXX object src/f1.cpp.o\n');
    expect(log[1]).toBe('[nh-gate build] 5/100 Building CXX object src/f5.cpp.o\n');
    expect(log.at(-1)).toBe('[nh-gate build] 100/100 Building CXX object src/f100.cpp.o\n');
    expect(log.every((l) => l.endsWith('\n') && !l.includes('\r'))).toBe(true);
    const few: string[] = [];
    const small = progressWriter(false, (s) => few.push(s));
    for (const l of ['[1/3] a', '[2/3] b', '[3/3] c']) small.line(l);
    expect(few).toEqual(['[nh-gate build] 1/3 a\n', '[nh-gate build] 2/3 b\n', '[nh-gate build] 3/3 c\n']);
  });

  it('expands placeholders per argv element and names an unknown one', () => {
    expect(expandArgv(['-B', '{buildDir}/x y'], { buildDir: '/b' }, 'r')).toEqual(['-B', '/b/x y']);
    expect(() => expandArgv(['{nope}'], { buildDir: '/b' }, 'recipe.build')).toThrow(NhGateError);
    expect(() => expandArgv(['{nope}'], { buildDir: '/b' }, 'recipe.build')).toThrow(/recipe.build\[0\]: placeholder \{nope\}/);
  });

  it('diagnoses a failed configure: the CMake Error block, and the prerequisite the recipe names', () => {
    const log = ['-- The CXX compiler identification is GNU', 'CMake Error at CMakeLists.txt:50 (message):', '  doctest not found: install doctest-dev (Debian/Ubuntu)', '', '', '-- Configuring incomplete, errors occurred!'];
    const d = diagnoseFailure({ prerequisites: [{ name: 'doctest', match: 'doctest not found', fix: 'apt-get install doctest-dev' }] }, log);
    expect(d.cause).toEqual(['CMake Error at CMakeLists.txt:50 (message):', 'doctest not found: install doctest-dev (Debian/Ubuntu)']);
    expect(d.prerequisite).toEqual({ name: 'doctest', fix: 'apt-get install doctest-dev' });
    expect(diagnoseFailure({ prerequisites: [] }, log).prerequisite).toBeNull();
    expect(diagnoseFailure({ prerequisites: [] }, ['a.cpp:3:5: error: x was not declared', 'ok line']).cause).toEqual(['a.cpp:3:5: error: x was not declared']);
    // one exit-class rule for a build, whichever command ran it
    expect(buildExitClass({ verdict: 'BUILT', prerequisite: null })).toBe('passed');
    expect(buildExitClass({ verdict: 'FAILED', prerequisite: null })).toBe('void');
    expect(buildExitClass({ verdict: 'FAILED', prerequisite: { name: 'doctest', fix: 'x' } })).toBe('usage');
    expect(buildExitClass({ verdict: 'VOID', prerequisite: null })).toBe('void');
  });
});

// A real, tiny CMake + Ninja project: configure prints a feature table, the build makes one binary.
describe('buildRecipe on a real CMake project', () => {
  let root = '';
  const recipeFor = (required: string[], probes: unknown[] = []) => RecipeSchema.parse({
    schemaVersion: 1, name: 'tiny', profile: 'nh-ref', sourceDir: 'src', buildDir: 'build-{arch}',
    configure: ['cmake', '-S', '{sourceDir}', '-B', '{buildDir}', '-G', 'Ninja'],
    build: ['cmake', '--build', '{buildDir}', '--parallel', '{jobs}'],
    archs: { cpu: { requiredCells: required } },
    outputs: ['{buildDir}/hello'], probes, driver: { argv: ['x'], binary: 'x' },
  });
  const build = (r: ReturnType<typeof recipeFor>) => buildRecipe({ recipe: r, root, arch: 'cpu', jobs: 2, exec: realExecutor, parseFeatures: featureParserFor(getProfile('nh-ref')) });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'nh-build-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'CMakeLists.txt'), [
      'cmake_minimum_required(VERSION 3.20)', 'project(tiny CXX)',
      'message(STATUS "  nh-ref feature fast-path: ENABLED for [cpu]")',
      'message(STATUS "  nh-ref feature gpu-path: DISABLED (no GPU arch requested)")',
      'add_executable(hello hello.cpp)', '',
    ].join('\n'));
    writeFileSync(join(root, 'src', 'hello.cpp'), 'int main() { return 0; }\n');
  });

  it('builds, hashes the output, and says so when a second build has nothing to do', async () => {
    const first = await build(recipeFor(['fast-path']));
    expect(first.verdict).toBe('BUILT');
    expect(first.noWork).toBe(false);
    expect(first.outputs[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const second = await build(recipeFor(['fast-path']));
    expect(second.verdict).toBe('BUILT');
    expect(second.noWork).toBe(true);
    expect(second.message).toMatch(/nothing to rebuild/);
    expect(second.outputs[0]!.sha256).toBe(first.outputs[0]!.sha256);
  });

  it('VOIDs a build whose required cell is DISABLED, naming the cell', async () => {
    const r = await build(recipeFor(['fast-path', 'gpu-path']));
    expect(r.verdict).toBe('VOID');
    expect(r.voidReason).toBe('DEGRADED_BUILD');
    expect(r.message).toContain('gpu-path (DISABLED (no GPU arch requested))');
    expect(r.build).toBeNull();
  });

  it('VOIDs a build whose required cell is ENABLED only for another arch (the check is arch-aware)', async () => {
    const r = await buildRecipe({ recipe: recipeFor(['fast-path']), root, arch: 'cpu', jobs: 2, exec: realExecutor, parseFeatures: () => ({ targetArchs: null, cells: [{ family: 'nh-ref', cell: 'fast-path', state: 'ENABLED', archs: ['90'], reason: null, line: 1 }] }) });
    expect(r.verdict).toBe('VOID');
    expect(r.voidReason).toBe('DEGRADED_BUILD');
    expect(r.message).toContain('fast-path (ENABLED for [90], not for cpu)');
  });

  it('VOIDs on a failing toolchain probe before configuring', async () => {
    const r = await build(recipeFor([], [{ name: 'nvcc 99', argv: ['cmake', '--version'], expect: 'release 99\\.' }]));
    expect(r.verdict).toBe('VOID');
    expect(r.voidReason).toBe('PROBE_FAILED');
    expect(r.configure).toBeNull();
  });

  it('counts the compile errors of a broken source and records the exit code', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'nh-broken-'));
    mkdirSync(join(broken, 'src'));
    writeFileSync(join(broken, 'src', 'CMakeLists.txt'), 'cmake_minimum_required(VERSION 3.20)\nproject(b CXX)\nadd_executable(hello hello.cpp)\n');
    writeFileSync(join(broken, 'src', 'hello.cpp'), 'int main() { return undefined_a + undefined_b; }\n');
    const r = await buildRecipe({ recipe: recipeFor([]), root: broken, arch: 'cpu', jobs: 1, exec: realExecutor, parseFeatures: featureParserFor(getProfile('nh-ref')) });
    expect(r.verdict).toBe('FAILED');
    expect(r.build!.exitCode).not.toBe(0);
    expect(r.compileErrors).toBe(2);
  });
});

describe('buildRecipe reuses a good configure of the same argv and toolchain (issue 25)', () => {
  const cmakeLists = (fastPath: string) => [
    'cmake_minimum_required(VERSION 3.20)', 'project(tiny CXX)',
    `message(STATUS "  nh-ref feature fast-path: ${fastPath}")`, 'add_executable(hello hello.cpp)', '',
  ].join('\n');
  const recipeFor = (required: string[], extraArgv: string[] = []) => RecipeSchema.parse({
    schemaVersion: 1, name: 'tiny', profile: 'nh-ref', sourceDir: 'src', buildDir: 'build-{arch}',
    configure: ['cmake', '-S', '{sourceDir}', '-B', '{buildDir}', '-G', 'Ninja', ...extraArgv],
    build: ['cmake', '--build', '{buildDir}', '--parallel', '{jobs}'],
    archs: { cpu: { requiredCells: required } }, outputs: ['{buildDir}/hello'], driver: { argv: ['x'], binary: 'x' },
  });
  const tree = (): string => {
    const root = mkdtempSync(join(tmpdir(), 'nh-memo-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'CMakeLists.txt'), cmakeLists('ENABLED for [cpu]'));
    writeFileSync(join(root, 'src', 'hello.cpp'), 'int main() { return 0; }\n');
    return root;
  };
  const build = (root: string, r: ReturnType<typeof recipeFor>) => buildRecipe({ recipe: r, root, arch: 'cpu', jobs: 2, exec: realExecutor, parseFeatures: featureParserFor(getProfile('nh-ref')) });

  it('skips the second configure, keeps the cells and output sha from the last one, and configures again for another argv', async () => {
    const root = tree();
    const first = await build(root, recipeFor(['fast-path']));
    expect([first.verdict, first.configure!.end]).toEqual(['BUILT', 'exit 0']);
    const second = await build(root, recipeFor(['fast-path']));
    expect([second.verdict, second.configure!.end, second.configure!.durationS]).toEqual(['BUILT', 'reused', 0]);
    expect(second.message).toBe('nothing to rebuild (ninja: no work to do); configure reused (same argv and toolchain)');
    expect(second.cells).toEqual(first.cells);
    expect(second.outputs).toEqual(first.outputs);
    const other = await build(root, recipeFor(['fast-path'], ['-DNH_X=1']));
    expect(other.configure!.end).toBe('exit 0');
  });

  it('takes the cells from the build when it re-ran CMake (a CMakeLists.txt changed): DEGRADED_BUILD, then configures again', async () => {
    const root = tree();
    expect((await build(root, recipeFor(['fast-path']))).verdict).toBe('BUILT');
    writeFileSync(join(root, 'src', 'CMakeLists.txt'), cmakeLists('DISABLED (switched off)'));
    const changed = await build(root, recipeFor(['fast-path']));
    expect(changed.configure!.end).toBe('reused');
    expect([changed.verdict, changed.voidReason, changed.missingCells]).toEqual(['VOID', 'DEGRADED_BUILD', ['fast-path']]);
    const after = await build(root, recipeFor(['fast-path']));
    expect([after.configure!.end, after.verdict, after.missingCells]).toEqual(['exit 0', 'VOID', ['fast-path']]);
  });

  it('never reuses a configure that was not CMake\'s, nor one whose build directory lost its CMakeCache.txt', async () => {
    const { configureKey, reusableConfigure, rememberConfigure } = await import('../../src/build/configureMemo.js');
    expect(configureKey(['./configure', '--prefix=/x'], [], {})).toBeNull();
    expect(configureKey(['/usr/bin/cmake', '-S', 'a'], ['cmake version 3.25'], {})).not.toBe(configureKey(['/usr/bin/cmake', '-S', 'a'], ['cmake version 3.31'], {}));
    // the environment the configure runs in is part of the key (a stand-in's NH_STANDIN_DISABLE, CC, CUDA_HOME …),
    // in any order, less the shell's bookkeeping
    const env = { CC: 'gcc', PATH: '/usr/bin', _: '/usr/bin/node' };
    expect(configureKey(['cmake'], [], env)).not.toBe(configureKey(['cmake'], [], { ...env, CC: 'clang' }));
    expect(configureKey(['cmake'], [], env)).not.toBe(configureKey(['cmake'], [], { ...env, NH_STANDIN_DISABLE: 'fa2' }));
    expect(configureKey(['cmake'], [], env)).toBe(configureKey(['cmake'], [], { PATH: '/usr/bin', CC: 'gcc', _: '/bin/sh', OLDPWD: '/tmp', SHLVL: '3' }));
    const dir = mkdtempSync(join(tmpdir(), 'nh-memo-dir-'));
    const key = configureKey(['cmake', '-S', 'a'], [], {});
    rememberConfigure(dir, key, ['-- line']);
    expect(reusableConfigure(dir, key)).toBeNull();
    writeFileSync(join(dir, 'CMakeCache.txt'), '');
    expect(reusableConfigure(dir, key)).toEqual(['-- line']);
    expect(reusableConfigure(dir, configureKey(['cmake', '-S', 'b'], [], {}))).toBeNull();
  });
});

describe('buildRecipe reuses a version probe of the same program and environment (issue 25)', () => {
  const recipeFor = (probes: unknown[]) => RecipeSchema.parse({
    schemaVersion: 1, name: 'tiny', profile: 'nh-ref', sourceDir: 'src', buildDir: 'build-{arch}',
    configure: ['cmake', '-S', '{sourceDir}', '-B', '{buildDir}', '-G', 'Ninja'],
    build: ['cmake', '--build', '{buildDir}', '--parallel', '{jobs}'],
    archs: { cpu: { requiredCells: [] } }, outputs: ['{buildDir}/hello'], probes, driver: { argv: ['x'], binary: 'x' },
  });
  // A tree with its own copy of ninja (a binary whose identity the test can change) and a script that prints a version.
  const tree = (): string => {
    const root = mkdtempSync(join(tmpdir(), 'nh-probe-memo-'));
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'bin'));
    writeFileSync(join(root, 'src', 'CMakeLists.txt'), 'cmake_minimum_required(VERSION 3.20)\nproject(tiny CXX)\nadd_executable(hello hello.cpp)\n');
    writeFileSync(join(root, 'src', 'hello.cpp'), 'int main() { return 0; }\n');
    copyFileSync(whichProgram('ninja', root)!, join(root, 'bin', 'ninja'));
    writeFileSync(join(root, 'bin', 'tool'), '#!/bin/sh\necho "tool 1.0"\n', { mode: 0o755 });
    return root;
  };
  const probes = [
    { name: 'cmake', argv: ['cmake', '--version'], expect: 'cmake version \\d' },
    { name: 'own ninja', argv: ['{root}/bin/ninja', '--version'] },
    { name: 'script', argv: ['{root}/bin/tool', '--version'] },
    { name: 'file', argv: ['ls', '{root}/src/hello.cpp'] },
  ];
  const build = (root: string, r: ReturnType<typeof recipeFor>) => buildRecipe({ recipe: r, root, arch: 'cpu', jobs: 2, exec: realExecutor, parseFeatures: featureParserFor(getProfile('nh-ref')) });
  const ends = (r: Awaited<ReturnType<typeof build>>) => r.probes.map((p) => p.end);

  it('answers a binary\'s --version from the memo, runs scripts and other probes, and keeps the configure memo', async () => {
    const root = tree();
    const first = await build(root, recipeFor(probes));
    expect([first.verdict, ...ends(first)]).toEqual(['BUILT', 'exit 0', 'exit 0', 'exit 0', 'exit 0']);
    const second = await build(root, recipeFor(probes));
    expect([second.verdict, ...ends(second)]).toEqual(['BUILT', 'reused', 'reused', 'exit 0', 'exit 0']);
    expect(second.probes.map((p) => [p.log, p.lastLines, p.ok, p.matched])).toEqual(first.probes.map((p) => [p.log, p.lastLines, p.ok, p.matched]));
    expect(second.probes[0]!.durationS).toBe(0);
    // the configure memo keys on the probes' output: a reused probe keeps it
    expect(second.configure!.end).toBe('reused');
  });

  it('runs the probe again when the program changed on disk, or when its remembered output no longer matches', async () => {
    const root = tree();
    expect((await build(root, recipeFor(probes))).verdict).toBe('BUILT');
    // the same bytes, rewritten: a new mtime and ctime is a new identity
    await new Promise((r) => setTimeout(r, 20));
    copyFileSync(join(root, 'bin', 'ninja'), join(root, 'bin', 'ninja.new'));
    renameSync(join(root, 'bin', 'ninja.new'), join(root, 'bin', 'ninja'));
    expect(ends(await build(root, recipeFor(probes)))).toEqual(['reused', 'exit 0', 'exit 0', 'exit 0']);
    const stricter = [{ ...probes[0]!, expect: 'cmake version 99\\.' }];
    const failed = await build(root, recipeFor(stricter));
    expect([failed.verdict, failed.voidReason, ...ends(failed)]).toEqual(['VOID', 'PROBE_FAILED', 'exit 0']);
  });

  it('keys on the argv, the program\'s identity and the environment; never memoizes a script or another kind of probe', async () => {
    const root = tree();
    const id = programIdentity(join(root, 'bin', 'ninja'), root)!;
    expect(id.realPath).toBe(join(root, 'bin', 'ninja'));
    expect(programIdentity(join(root, 'bin', 'tool'), root)).toBeNull();
    expect(programIdentity('no-such-program-nh', root)).toBeNull();
    const env = { PATH: '/usr/bin', LANG: 'C', _: '/usr/bin/node' };
    const key = probeKey(['ninja', '--version'], id, env);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(probeKey(['ninja', '--version'], id, { ...env, _: '/bin/sh', SHLVL: '2' })).toBe(key);
    expect(probeKey(['ninja', '--version'], id, { ...env, LANG: 'de_DE.UTF-8' })).not.toBe(key);
    expect(probeKey(['ninja', '--version'], { ...id, id: `${id.id}x` }, env)).not.toBe(key);
    expect(probeKey(['ninja', '--version'], { ...id, realPath: '/elsewhere/ninja' }, env)).not.toBe(key);
    expect(probeKey(['ninja', '-v'], id, env)).toBeNull();
    expect(probeKey(['ninja', '--version', 'x'], id, env)).toBeNull();
    expect(probeKey(['ninja', '--version'], null, env)).toBeNull();
    // a memo that is not one is no memo
    writeFileSync(join(root, PROBE_MEMO), '{"probes":{"k":{"log":[1],"lastLines":[]},"j":{"log":["a"],"lastLines":["a"]}}}');
    expect([...readProbeMemo(root).keys()]).toEqual(['j']);
    writeFileSync(join(root, PROBE_MEMO), 'not json');
    expect(readProbeMemo(root).size).toBe(0);
  });
});

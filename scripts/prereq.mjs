#!/usr/bin/env node
// The test suites' prerequisites, checked before `npm test` runs anything (its `pretest` step) and by
// `.ci/run` for the tools CI needs before `npm ci`. Written in plain Node (no build, no dependency) because
// it must run before the TypeScript is compiled, on a bare machine.
//
//   node scripts/prereq.mjs                 # what `npm test` needs: cmake, ninja, a C++ compiler, git, doctest
//   node scripts/prereq.mjs cmake ninja cxx # only these
//
// Missing and installable (root, apt-get present): installs them and says so in one line. Missing and not
// installable: one message naming the packages and the command, exit 2 (a missing prerequisite is exit
// class "usage" in the README's table), before any test runs. NH_GATE_PREREQ_ROOT (tests only) is the
// filesystem root the header and CMake-config probes look under, so a test can see a machine without doctest.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Each prerequisite: what it is for, its Debian package, and how it is found.
export const PREREQS = {
  cmake: { pkg: 'cmake', why: 'configures the reference engine', probe: (env) => onPath('cmake', env) },
  ninja: { pkg: 'ninja-build', why: 'builds the reference engine', probe: (env) => onPath('ninja', env) },
  cxx: { pkg: 'g++', why: 'compiles the reference engine', probe: (env) => onPath('c++', env) || onPath('g++', env) || onPath('clang++', env) },
  git: { pkg: 'git', why: 'mutation checks from a diff and cross-commit A/Bs', probe: (env) => onPath('git', env) },
  xz: { pkg: 'xz-utils', why: 'unpacks carried runtimes', probe: (env) => onPath('xz', env) },
  // Not in TEST_NEEDS (a browser is large): .ci/run asks for it; without it the report.html test is skipped and counted.
  chromium: { pkg: 'chromium', why: 'renders report.html in the headless-browser test', probe: (env) => onPath('chromium', env) },
  doctest: { pkg: 'doctest-dev', why: "the engine's doctest suites, run by npm test and nh-gate mutate", probe: (env) => doctestFound(env) },
  // The suite readers' real GoogleTest and Catch2 suites (test/mutate/suites/project); CI installs them.
  gtest: { pkg: 'libgtest-dev', why: 'the GoogleTest suite the suite readers are tested on', probe: (env) => headerFound(env, 'gtest/gtest.h') },
  catch2: { pkg: 'catch2', why: 'the Catch2 suite the suite readers are tested on', probe: (env) => headerFound(env, 'catch2/catch.hpp') },
};
export const TEST_NEEDS = ['cmake', 'ninja', 'cxx', 'git', 'doctest'];

function onPath(cmd, env) {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) if (dir && existsSync(path.join(dir, cmd))) return true;
  return false;
}

// A header under the system include dirs (or CPATH), below the test root.
function headerFound(env, rel) {
  const root = env.NH_GATE_PREREQ_ROOT ?? '/';
  const dirs = [...(env.CPATH ?? '').split(path.delimiter).filter(Boolean), path.join(root, 'usr/include'), path.join(root, 'usr/local/include')];
  return dirs.some((d) => existsSync(path.join(d, rel)));
}

// Where CMake's find_package(doctest) / find_path(doctest/doctest.h) in native/engine would look.
export function doctestFound(env) {
  const root = env.NH_GATE_PREREQ_ROOT ?? '/';
  const under = (p) => path.join(root, p);
  const includeDirs = [
    ...(env.CMAKE_INCLUDE_PATH ?? '').split(path.delimiter).filter(Boolean),
    ...(env.CPATH ?? '').split(path.delimiter).filter(Boolean),
    under('usr/include'), under('usr/local/include'),
  ];
  if (includeDirs.some((d) => existsSync(path.join(d, 'doctest', 'doctest.h')))) return true;
  const configDirs = [
    env.doctest_DIR, under('usr/lib/cmake/doctest'), under('usr/local/lib/cmake/doctest'),
    under('usr/share/doctest/cmake'), under('usr/lib/x86_64-linux-gnu/cmake/doctest'), under('usr/lib/aarch64-linux-gnu/cmake/doctest'),
  ].filter(Boolean);
  return configDirs.some((d) => existsSync(path.join(d, 'doctestConfig.cmake')) || existsSync(path.join(d, 'doctest-config.cmake')));
}

// What to do about the missing ones: nothing, install (root with apt-get), or stop with one message.
// Pure: the probes' results, the uid and whether apt-get exists come in; the decision goes out.
export function decide(missing, { uid, aptGet }) {
  if (missing.length === 0) return { action: 'none' };
  const pkgs = missing.map((m) => PREREQS[m].pkg);
  const what = missing.map((m) => `${PREREQS[m].pkg} (${PREREQS[m].why})`).join(', ');
  if (uid === 0 && aptGet) return { action: 'install', packages: pkgs, line: `prereq: installing ${what}` };
  const cmd = `${uid === 0 ? '' : 'sudo '}apt-get install -y ${pkgs.join(' ')}`;
  const how = aptGet ? `install ${pkgs.length > 1 ? 'them' : 'it'} with: ${cmd}` : `install ${pkgs.join(', ')} with your system's package manager (Debian/Ubuntu: ${cmd})`;
  return {
    action: 'stop',
    exitCode: 2,
    message: `prereq: the tests need ${what}, which ${missing.length > 1 ? 'are' : 'is'} not on this machine; ${uid === 0 ? '' : 'this user cannot install packages, so no test ran: '}${how}`,
  };
}

function apt(args) {
  return spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, encoding: 'utf8' });
}

function install(packages) {
  let r = apt(['install', '-y', '-qq', ...packages]);
  if (r.status !== 0) {
    // A fresh machine's package lists may be empty or stale: refresh once, then try again.
    apt(['update', '-qq']);
    r = apt(['install', '-y', '-qq', ...packages]);
  }
  return r;
}

export function main(argv, env = process.env) {
  const unknown = argv.filter((a) => !(a in PREREQS));
  if (unknown.length) {
    process.stderr.write(`prereq: unknown prerequisite '${unknown[0]}' (known: ${Object.keys(PREREQS).join(', ')})\n`);
    return 2;
  }
  const needs = argv.length ? argv : TEST_NEEDS;
  const missing = needs.filter((n) => !PREREQS[n].probe(env));
  const d = decide(missing, { uid: process.getuid?.() ?? -1, aptGet: onPath('apt-get', env) });
  if (d.action === 'none') return 0;
  if (d.action === 'stop') {
    process.stderr.write(d.message + '\n');
    return d.exitCode;
  }
  const t0 = Date.now();
  const r = install(d.packages);
  if (r.status !== 0) {
    process.stderr.write(`prereq: apt-get install ${d.packages.join(' ')} failed (exit ${r.status}): ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}\n`);
    return 2;
  }
  const still = needs.filter((n) => !PREREQS[n].probe(env));
  if (still.length) {
    process.stderr.write(`prereq: installed ${d.packages.join(' ')} but ${still.join(', ')} is still not found; check the install\n`);
    return 2;
  }
  process.stderr.write(`${d.line.replace('installing', 'installed')} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));

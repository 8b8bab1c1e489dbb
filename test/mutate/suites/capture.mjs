#!/usr/bin/env node
// Builds the tiny real suites in project/ (doctest, GoogleTest, Catch2, CTest) and runs each capture of
// captures.json, writing what the suite printed and the report it wrote. The readers' tests read the
// committed captures; their regeneration test calls captureAll into a scratch folder and compares what
// the readers make of both. Accepting new captures is this explicit command, never a test:
//
//   node test/mutate/suites/capture.mjs --accept     # rebuild, rerun, overwrite captured/
//
// Needs cmake, ninja, g++, doctest-dev, libgtest-dev and catch2 (Debian 12 packages).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const CAPTURES = JSON.parse(readFileSync(join(HERE, 'captures.json'), 'utf8')).captures;
export const BINARIES = { doctest: 'doctest_suite', gtest: 'gtest_suite', catch2: 'catch2_suite', ctest: 'ctest_sum_adds' };

// Copies project/ to <dir>/suitefix and builds it in <dir>/build; returns the build dir and the formats
// whose suite did not build (its framework is not installed).
export function buildProject(dir) {
  const src = join(dir, 'suitefix');
  const bin = join(dir, 'build');
  cpSync(join(HERE, 'project'), src, { recursive: true });
  const run = (argv) => spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' });
  const cfg = run(['cmake', '-S', src, '-B', bin, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']);
  if (cfg.status !== 0) throw new Error(`configure failed: ${cfg.stdout}${cfg.stderr}`);
  const b = run(['cmake', '--build', bin]);
  if (b.status !== 0) throw new Error(`build failed: ${b.stdout}${b.stderr}`);
  const missing = Object.entries(BINARIES).filter(([, exe]) => !existsSync(join(bin, exe))).map(([f]) => f);
  return { bin, missing };
}

// Runs one capture; its console (stdout and stderr as one stream, as nh-gate reads a suite) and report.
export function runCapture(c, bin, outDir) {
  const report = join(outDir, `${c.id}.report`);
  rmSync(report, { force: true });
  const argv = c.argv.map((a) => a.replaceAll('{bin}', bin).replaceAll('{report}', report));
  const env = { ...process.env, SUITE_BREAK: c.break ?? '' };
  const r = spawnSync('sh', ['-c', '"$@" 2>&1', 'sh', ...argv], { encoding: 'utf8', env, cwd: bin });
  writeFileSync(join(outDir, `${c.id}.out`), r.stdout);
  return { exit: r.status, out: r.stdout, report: c.report ? (existsSync(report) ? readFileSync(report, 'utf8') : null) : undefined };
}

// Every capture whose framework built, into outDir; returns what each printed and wrote.
export function captureAll(workDir, outDir) {
  const { bin, missing } = buildProject(workDir);
  mkdirSync(outDir, { recursive: true });
  const results = {};
  for (const c of CAPTURES) if (!missing.includes(c.format)) results[c.id] = runCapture(c, bin, outDir);
  return { results, missing };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--accept')) {
    process.stderr.write('usage: node test/mutate/suites/capture.mjs --accept   (overwrites test/mutate/suites/captured/)\n');
    process.exit(2);
  }
  const work = mkdtempSync(join(tmpdir(), 'nhg-suites-'));
  const out = join(HERE, 'captured');
  rmSync(out, { recursive: true, force: true });
  const { results, missing } = captureAll(work, out);
  if (missing.length) {
    process.stderr.write(`capture: ${missing.join(', ')} did not build (install doctest-dev libgtest-dev catch2); nothing accepted\n`);
    process.exit(2);
  }
  const exits = Object.fromEntries(Object.entries(results).map(([id, r]) => [id, r.exit]));
  writeFileSync(join(out, 'exits.json'), `${JSON.stringify(exits, null, 2)}\n`);
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`captured ${Object.keys(results).length} runs into ${out}\n`);
}

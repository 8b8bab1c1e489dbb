import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeRepo, type FakeRepo } from './fake.js';
import { createProgram } from '../../src/cli/main.js';

// Issue 24's live output through the BUILT binary with stdout a pipe (never a terminal): leg lines as legs
// end, progress on stderr, a closed stdout stopping the run, and the --export-* files and --verbose.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'nh-gate.js');

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is not built: run `npm run build` first');
});

function abArgs(repo: FakeRepo, results: string, repeats: number): string[] {
  return ['ab', '--recipe', repo.recipePath, '--flag', 'FLAG', '--repeats', String(repeats), '--results-dir', results];
}

function onlyRun(results: string): { dir: string; doc: { status: string; legs: Array<{ verdict: string }>; verdict: { word: string; reasons: Array<{ code: string; message: string }> } } } {
  const runs = readdirSync(join(results, 'runs'));
  expect(runs).toHaveLength(1);
  const dir = join(results, 'runs', runs[0]!);
  return { dir, doc: JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) };
}

describe('live output in a pipe', () => {
  it("each leg's line reaches a pipe while the run is still going; progress reaches stderr as plain lines", async () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.05' });
    const results = join(repo.root, 'res');
    const hold = join(repo.root, 'hold');
    // From the second leg on the driver waits for `hold`, which is made only once leg 1's line has arrived:
    // output written at the end would leave leg 2 waiting until its timeout (VOID TIMEOUT, and this test red).
    const child = spawn(process.execPath, [BIN, ...abArgs(repo, results, 2)], {
      cwd: repo.root, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NH_GATE_LOCK: join(repo.root, 'gpu.lock'), FAKE_COUNT_FILE: join(repo.root, 'count'), FAKE_HOLD_FILE: hold },
    });
    let out = '';
    let err = '';
    let statusWhenLeg1 = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
      if (!existsSync(hold) && /^leg 1\/4 \[A1 FLAG=off\]: STRICT PASS \(engine's claim: the harness saw no ids\) — 8\/8 tokens, [\d.]+ s\/token, [\d.]+ tokens\/s, [\d.]+ s$/m.test(out)) {
        statusWhenLeg1 = onlyRun(results).doc.status;
        writeFileSync(hold, '');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s; });
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(statusWhenLeg1, `${out}\n${err}`).toBe('running');
    expect(code, out + err).toBe(0);
    const { doc } = onlyRun(results);
    expect(doc.legs.map((l) => l.verdict)).toEqual(['STRICT PASS', 'STRICT PASS', 'STRICT PASS', 'STRICT PASS']);
    expect(out.match(/^leg \d\/4 \[/gm)).toHaveLength(4);
    // The leg table and the arm table follow the legs; the verdict line and the files end the output.
    expect(out).toMatch(/^leg +arm +tokens +s\/token +tokens\/s +time \[s\] +verdict$/m);
    expect(out).toMatch(/^figure +arm +n +mean ± σ +median +min – max$/m);
    expect(out.trimEnd().split('\n').slice(-3)[0]).toMatch(/^MEASURED — /);
    expect(err).toMatch(/^\[nh-gate\] build fake for arch cpu$/m);
    expect(err).toMatch(/^\[nh-gate\] leg 4: A2 FLAG=off$/m);
    expect(err).not.toContain('\r');
  }, 120_000);

  it('`| head -1` stops the run at once: the running leg killed, finished legs kept, interrupted, exit 3', () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.4' });
    const results = join(repo.root, 'res');
    const cmd = `("${process.execPath}" "${BIN}" ${abArgs(repo, results, 6).map((a) => `'${a}'`).join(' ')}; echo "rc=$?" >&2) | head -1`;
    const r = spawnSync('sh', ['-c', cmd], { cwd: repo.root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NH_GATE_LOCK: join(repo.root, 'gpu.lock') } });
    expect(r.stdout).toMatch(/^nh-gate ab — recipe fake — golden g-test — arch cpu\n$/);
    expect(r.stderr).toMatch(/rc=3/);
    expect(r.stderr).toMatch(/nh-gate: stdout closed: stopping after killing the running leg; finished legs are kept/);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    const { doc } = onlyRun(results);
    expect(doc.status).toBe('interrupted');
    expect(doc.legs.length).toBeLessThan(12);
    expect(doc.verdict.word).toBe('VOID');
    expect(doc.verdict.reasons[0]).toMatchObject({ code: 'PARTIAL', message: expect.stringMatching(/^interrupted after \d+ of 12 leg\(s\)/) });
  }, 120_000);
});

describe('--export-* and --verbose', () => {
  it('writes CSV, markdown, JSON and JSON Lines with one row per leg and per arm; --verbose prints every leg in full', () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.05' });
    const results = join(repo.root, 'res');
    const x = (ext: string): string => join(repo.root, `out.${ext}`);
    const r = spawnSync(process.execPath, [BIN, ...abArgs(repo, results, 2), '--verbose', '--export-csv', x('csv'), '--export-markdown', x('md'), '--export-json', x('json'), '--export-jsonl', x('jsonl')], {
      cwd: repo.root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NH_GATE_LOCK: join(repo.root, 'gpu.lock') },
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.match(/^ {2}engine said STRICT PASS \(exit 0\): agrees with the harness$/gm)).toHaveLength(4);
    expect(r.stdout).toMatch(/^ {2}leg 1: A1 FLAG=off \(mode decode\)$/m);
    const csv = readFileSync(x('csv'), 'utf8').trimEnd().split('\r\n');
    expect(csv[0]).toMatch(/^row,leg,arm,label,.*,duration_s,decode_window_s,s_per_token,.*,tokens_per_s,/);
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['leg', 'leg', 'leg', 'leg', 'arm', 'arm']);
    const json = JSON.parse(readFileSync(x('json'), 'utf8'));
    expect(json).toMatchObject({ schemaVersion: 1, command: 'ab', recipe: 'fake', verdict: { word: 'MEASURED' } });
    expect(json.legs).toHaveLength(4);
    expect(json.legs[0].s_per_token).toBeGreaterThan(0);
    expect(json.arms.map((a: { arm: string; legs: number }) => [a.arm, a.legs])).toEqual([['A', 2], ['B', 2]]);
    expect(readFileSync(x('jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l).row)).toEqual(['leg', 'leg', 'leg', 'leg', 'arm', 'arm']);
    const md = readFileSync(x('md'), 'utf8');
    expect(md).toMatch(/^## nh-gate ab: MEASURED$/m);
    expect(md.match(/^\| [1-4] \| [AB] \| 8\/8 \|/gm)).toHaveLength(4);
  }, 120_000);

  it('--json keeps stdout one document while the exports are written; an export into a missing folder is exit 2 before anything runs', () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok', FAKE_DECODE_S: '0.05' });
    const results = join(repo.root, 'res');
    const env = { ...process.env, NH_GATE_LOCK: join(repo.root, 'gpu.lock') };
    const r = spawnSync(process.execPath, [BIN, ...abArgs(repo, results, 1), '--json', '--export-csv', join(repo.root, 'a.csv')], { cwd: repo.root, encoding: 'utf8', timeout: 120_000, env });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).legs).toHaveLength(2);
    expect(readFileSync(join(repo.root, 'a.csv'), 'utf8').trimEnd().split('\r\n')).toHaveLength(1 + 2 + 2);
    const bad = spawnSync(process.execPath, [BIN, ...abArgs(repo, join(repo.root, 'res2'), 1), '--export-json', join(repo.root, 'no', 'such', 'x.json')], { cwd: repo.root, encoding: 'utf8', timeout: 60_000, env });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`folder ${join(repo.root, 'no', 'such')} does not exist; create it first or export elsewhere`);
    expect(existsSync(join(repo.root, 'res2'))).toBe(false);
  }, 120_000);
});

describe('build progress and the documented options', () => {
  it("a build's [n/m] steps reach a piped stderr as plain lines while it runs", () => {
    const repo = fakeRepo({ FAKE_MODE: 'ok' });
    const recipe = JSON.parse(readFileSync(repo.recipePath, 'utf8'));
    recipe.build = ['sh', '-c', 'for i in 1 2 3; do echo "[$i/3] Building CXX object step$i.o"; echo "  noise $i"; done'];
    writeFileSync(repo.recipePath, JSON.stringify(recipe));
    const r = spawnSync(process.execPath, [BIN, 'build', '--recipe', repo.recipePath], { cwd: repo.root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('[nh-gate build]'))).toEqual([1, 2, 3].map((i) => `[nh-gate build] ${i}/3 Building CXX object step${i}.o`));
    expect(r.stderr).not.toMatch(/noise|\r/);
  }, 60_000);

  it('docs/output.md lists exactly the --export-* options a3 and ab accept', () => {
    const documented = [...readFileSync(join(ROOT, 'docs', 'output.md'), 'utf8').matchAll(/^\| `(--export-[a-z]+) FILE` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toHaveLength(4);
    for (const name of ['a3', 'ab']) {
      const cmd = createProgram().commands.find((c) => c.name() === name)!;
      expect(cmd.options.map((o) => o.long).filter((l) => l?.startsWith('--export-')).sort()).toEqual(documented);
      expect(cmd.options.some((o) => o.long === '--verbose')).toBe(true);
    }
  });
});

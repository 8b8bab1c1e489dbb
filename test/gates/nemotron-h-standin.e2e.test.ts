// recipes/nemotron-h.json end to end through the CLI (bin → dist), with the engine replaced by the test-only
// stand-in in test/fixtures/nemotron-h (a CMake tree that prints vllm.cpp's feature lines and a driver
// written from examples/nemotron_h_gen/main.cpp), nvcc by a stand-in, and the GPU by the stand-in NVML
// (FAKE_NVML_CC=12.1: a GB10). The golden is the engine's own oracle.json, imported and accepted.
// What this cannot show — the real engine, its checkpoint, a real GB10 — is in docs/recipes/nemotron-h.md.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/engine.js';
import { isolatedResults } from '../helpers/legLogs.js';
import { ensureAddonBuilt, FAKE_NVML } from '../sampler/helpers.js';

const bin = join(repoRoot, 'bin', 'nh-gate.js');
const FIX = join(repoRoot, 'test/fixtures/nemotron-h');
const ORACLE = join(repoRoot, 'test/fixtures/vllm-cpp/nemotron_35_lightning_greedy/oracle.json');
const NAME = 'nemotron_35_lightning_greedy';
const nodeDir = join(process.execPath, '..');
const PATH = `${join(FIX, 'bin')}:${nodeDir}:/usr/local/bin:/usr/bin:/bin`;
const GB10 = { NH_GATE_NVML_LIBRARY: FAKE_NVML, FAKE_NVML_NAME: 'NVIDIA GB10', FAKE_NVML_CC: '12.1', FAKE_NVML_NO_PROCS: '1' };

let engine: string, ckpt: string, golden: string;
// Each run its own results dir; at the end every leg log in them re-judges (analyze) to its leg's verdict.
const isolate = isolatedResults();

// One nh-gate run from inside the stand-in engine checkout ({cwd} is the recipe's sourceDir).
async function nhGate(args: string[], env: Record<string, string> = {}) {
  const results = isolate();
  const r = await execa('node', [bin, ...args, '--results-dir', results], {
    cwd: engine, reject: false, extendEnv: false,
    env: { PATH, HOME: process.env.HOME ?? '/root', NH_GATE_LOCK: join(results, 'gpu.lock'), ...env },
  });
  const runs = existsSync(join(results, 'runs')) ? readdirSync(join(results, 'runs')) : [];
  return { ...r, runDir: runs[0] ? join(results, 'runs', runs[0]) : null };
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  ensureAddonBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'nh-nemo-'));
  engine = join(dir, 'vllm.cpp');
  cpSync(join(FIX, 'engine'), engine, { recursive: true });
  ckpt = join(dir, 'nemotron-3.5-lightning-30b-nvfp4');
  mkdirSync(ckpt);
  const imp = await execa('node', [bin, 'golden', 'import', '--format', 'vllm-cpp-oracle', ORACLE, '--root', engine], { reject: false });
  expect(imp.exitCode, imp.stderr).toBe(0);
  const acc = await execa('node', [bin, 'golden', 'accept', NAME, '--root', engine], { reject: false });
  expect(acc.exitCode, acc.stderr).toBe(0);
  golden = join(engine, 'goldens', NAME);
}, 240_000);

describe('a3 --recipe nemotron-h through the stand-in', () => {
  it('--arch 121a on a host without a GB10 is VOID (NO_SUCH_SILICON), exit 3, nothing built', async () => {
    const none = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt], { NH_GATE_NVML_LIBRARY: '/nonexistent/libnvidia-ml.so.1' });
    expect(none.exitCode).toBe(3);
    expect(none.stdout).toMatch(/VOID — NO_SUCH_SILICON: --arch 121a claims compute capability 12\.1, but this host has no GPU/);
    const h200 = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt], { ...GB10, FAKE_NVML_NAME: 'Fake H200', FAKE_NVML_CC: '9.0' });
    expect(h200.exitCode).toBe(3);
    expect(h200.stdout).toMatch(/NO_SUCH_SILICON: --arch 121a claims compute capability 12\.1, but this host has Fake H200 \(compute capability 9\.0/);
    expect(existsSync(join(engine, 'build-cuda-121a'))).toBe(false);
    const noCkpt = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden], GB10);
    expect(noCkpt.exitCode).toBe(2);
    expect(noCkpt.stderr).toContain("USAGE: recipe 'nemotron-h' runs its driver with {checkpoint} and no --checkpoint was given");
    expect(noCkpt.stderr).toContain('fix: pass --checkpoint');
    expect(existsSync(join(engine, 'build-cuda-121a'))).toBe(false);
  }, 60_000);

  it('STRICT PASS on a stand-in GB10: the real recipe builds, probes by a link, hands over the original oracle.json', async () => {
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt, '--jobs', '1', '--json'], GB10);
    expect(r.exitCode, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    expect(res.verdict.word).toBe('STRICT PASS');
    expect(res.silicon).toMatchObject({ gpuName: 'NVIDIA GB10', computeCapability: '12.1', archTarget: '121a' });
    const buildLog = readFileSync(join(res.runDir, 'build.log'), 'utf8');
    expect(buildLog).toContain(`$ nvcc -arch=sm_121a ${join(repoRoot, 'recipes/probes/cublaslt-link.cu')} -o /dev/null -lcublasLt`);
    expect(buildLog).toContain('--   CUDA feature marlin-nvfp4: ENABLED for [121a]');
    expect(res.build.missingCells).toEqual([]);
    expect(res.notes.join('\n')).toContain(`driver golden: the imported original ${join(golden, 'oracle.json')}`);
    const leg = res.legs[0];
    expect(leg.process.argv).toEqual([join(engine, 'build-cuda-121a/examples/nemotron-h-gen'), '--model', ckpt, '--golden', join(golden, 'oracle.json')]);
    expect(leg.flagEnv).toMatchObject({ VT_NEMOTRON_H_DEVICE_MAMBA: '1', VT_NEMOTRON_H_DEVICE_MOE: '1', VT_NEMOTRON_H_ARM_TRACE: '1' });
    expect(leg.tokens.word).toBe('STRICT PASS');
    expect(leg.quantities.perOutputToken.status).toBe('measured');
    expect(leg.quantities.busy).toMatchObject({ status: 'measured' });
    expect(leg.counters.state_update_rows).toBeGreaterThan(0); // the [NH-DIAG] ARM lines were read
    const log = readFileSync(join(res.runDir, leg.logFile), 'utf8');
    expect(log).toContain('capture: engine configuration UNRECORDED');
  }, 120_000);

  it('a golden with no original is written in the engine format into the run dir, and the driver reads it', async () => {
    const tiny = join(repoRoot, 'goldens', 'nh-ref-tiny');
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', tiny, '--checkpoint', ckpt, '--json'], GB10);
    expect(r.exitCode, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    const written = join(res.runDir, 'golden', 'oracle.json');
    expect(res.notes.join('\n')).toContain(`driver golden: ${written}, written in the vllm-cpp-oracle format from ${join(tiny, 'golden.json')}`);
    expect(res.legs[0].process.argv.slice(-2)).toEqual(['--golden', written]);
    expect(readFileSync(written, 'utf8')).toMatch(/^\{\n  "vllm": "nh-ref-oracle-f64/);
    expect(res.verdict.word).toBe('STRICT PASS');
  }, 60_000);

  it('the seeds\' partial CUDA install (feature lines fine, cuBLASLt does not link) is VOID by the probe name', async () => {
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt], { ...GB10, NH_STANDIN_NVCC_NO_CUBLASLT: '1' });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/PROBE_FAILED: toolchain probe 'nvcc links cuBLASLt' failed/);
  }, 60_000);

  it('a required cell DISABLED is VOID (DEGRADED_BUILD); a wrong token is the harness DIVERGENCE, exit 1', async () => {
    const deg = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt], { ...GB10, NH_STANDIN_DISABLE: 'fa2' });
    expect(deg.exitCode).toBe(3);
    expect(deg.stdout).toMatch(/DEGRADED_BUILD: required feature cell\(s\) not ENABLED for 121a: .*fa2/);
    const div = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt, '--json'], { ...GB10, STANDIN_WRONG: '1:5' });
    expect(div.exitCode).toBe(1);
    const res = JSON.parse(div.stdout);
    expect(res.verdict.word).toBe('DIVERGENCE');
    expect(res.legs[0].tokens.word).toBe('DIVERGENCE');
  }, 120_000);
});

describe("the engine's own output: a short row's suffix, exit 1 before the load, the cpu arch", () => {
  it('a SHORT RUN row as main.cpp prints it ("  <-- SHORT RUN, not a full row"): the live leg and analyze of its log both say SHORT, exit 4', async () => {
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt, '--json'], { ...GB10, STANDIN_STEPS: '16' });
    expect(r.exitCode, r.stderr).toBe(4);
    const res = JSON.parse(r.stdout);
    expect(res.verdict.word).toBe('SHORT');
    const leg = res.legs[0];
    const log = readFileSync(join(res.runDir, leg.logFile), 'utf8');
    expect(log).toMatch(/compared=16 matched=16 wall=\d+\.\d\ds {2}<-- SHORT RUN, not a full row/);
    expect(leg.tokens).toMatchObject({ word: 'SHORT', shortRows: 3, compared: 48, matched: 48 });
    expect(leg.crossCheck.agree).toBe(true);
    const a = await execa('node', [bin, 'analyze', '--log', join(res.runDir, leg.logFile), '--recipe', 'nemotron-h', '--arch', '121a'], { reject: false });
    expect(a.exitCode, a.stderr).toBe(4);
    expect(a.stdout).toContain('token gate: SHORT — re-judged by the harness');
  }, 120_000);

  it('exit 1 before the load line (engine load FAILED) is VOID LOAD_FAILED, never "the engine said DIVERGENCE", and no reason prints as [object Object]', async () => {
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', '121a', '--golden', golden, '--checkpoint', join(ckpt, 'absent')], GB10);
    expect(r.exitCode, r.stderr).toBe(3);
    expect(r.stdout).toContain('void: LOAD_FAILED: the engine exited 1 before its load-complete line and compared nothing: a load failure, not a DIVERGENCE');
    expect(r.stdout).toContain('[nemotron-h] engine load FAILED: no model at');
    expect(r.stdout).toMatch(/^VOID — LEG_NOT_PASSED: leg 1 \(a3 decode\): VOID — LOAD_FAILED: /m);
    expect(r.stdout).not.toContain('[object Object]');
    expect(r.stdout).not.toMatch(/said DIVERGENCE/);
  }, 120_000);

  it('--arch cpu builds with -DVLLM_CPP_CUDA=OFF and -Wno-error=volatile, runs no GPU probe, and judges the tokens', async () => {
    const r = await nhGate(['a3', '--recipe', 'nemotron-h', '--arch', 'cpu', '--golden', golden, '--checkpoint', ckpt, '--jobs', '1', '--json'], { NH_GATE_NVML_LIBRARY: '/nonexistent/libnvidia-ml.so.1' });
    expect(r.exitCode, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout);
    const buildLog = readFileSync(join(res.runDir, 'build.log'), 'utf8');
    expect(buildLog).toContain(`$ cmake -S ${engine} -B ${join(engine, 'build-cuda-cpu')} -G Ninja -DCMAKE_BUILD_TYPE=Release -DVLLM_CPP_CUDA=OFF -DCMAKE_CXX_FLAGS=-Wno-error=volatile`);
    expect(buildLog).not.toContain('nvcc');
    expect(res.legs[0].flagEnv.VT_NEMOTRON_H_DEVICE_MAMBA).toBeUndefined(); // no device claim on cpu
    expect(res.verdict.word).toBe('STRICT PASS');
  }, 120_000);
});

describe('ab --flag DEVICE_MAMBA and analyze through the same recipe', () => {
  it('one binary, flag off vs on, every leg token-gated; analyze re-reads a leg log with the 121a baselines', async () => {
    const r = await nhGate(['ab', '--recipe', 'nemotron-h', '--flag', 'DEVICE_MAMBA', '--arch', '121a', '--golden', golden, '--checkpoint', ckpt, '--repeats', '2', '--json'], { ...GB10, STANDIN_TOKEN_MS: '8' });
    expect(r.exitCode, r.stderr).toBe(0); // no gate: the ratio is measured, nothing pre-registered to judge it against
    const res = JSON.parse(r.stdout);
    expect(res.legs).toHaveLength(4);
    expect(res.legs.every((l: { verdict: string }) => l.verdict === 'STRICT PASS')).toBe(true);
    expect(res.legs.map((l: { flagEnv: Record<string, string> }) => l.flagEnv.VT_NEMOTRON_H_DEVICE_MAMBA).sort()).toEqual(['0', '0', '1', '1']);
    expect(new Set(res.legs.map((l: { binarySha256: string }) => l.binarySha256)).size).toBe(1);
    expect(res.quantities.ratio.status).toBe('measured');
    expect(res.quantities.ratio.value).toBeLessThan(0.9); // the stand-in's device arm halves its token time

    const leg = res.legs[0];
    const log = join(res.runDir, leg.logFile);
    const a = await execa('node', [bin, 'analyze', '--log', log, '--recipe', 'nemotron-h', '--arch', '121a'], { reject: false });
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.stdout).toMatch(/token gate: STRICT PASS \(engine's claim: the harness saw no ids\) — re-judged by the harness[\s\S]*the engine's own lines \(its claim\): block 0 mode=decode: 96\/96 over 3 prompt\(s\) \(full rows=3, short rows=0\); said STRICT PASS/);
    expect(a.stdout).toMatch(/per output token vs vLLM per output token [\d.]+x \([\d.]+ s \/ 0\.014369 s; both on 121a\)/);
    expect(a.stdout).toMatch(/93× ARM step T=1 nd=1 np=0 state_update_rows=23/);
    // The baselines are GB10's: on Thor they are withheld by name, never divided.
    const thor = await execa('node', [bin, 'analyze', '--log', log, '--recipe', 'nemotron-h', '--arch', '110', '--json'], { reject: false });
    expect(thor.exitCode, thor.stderr).toBe(0);
    expect(JSON.parse(thor.stdout).schemaVersion).toBe(1);
    expect(thor.stdout).toContain('CROSS_SILICON');
    expect(thor.stdout).not.toMatch(/"status":"measured","value":[\d.]+,"unit":"x"/);
  }, 180_000);
});

import { describe, expect, it, beforeAll } from 'vitest';
import { isolatedResults } from '../helpers/legLogs.js';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';
import { loadInputs } from '../../src/gates/setup.js';
import { runA3 } from '../../src/gates/a3.js';
import { runAb } from '../../src/gates/ab/run.js';
import { formatReason } from '../../src/verdict/reasons.js';
import { realDeps } from '../../src/gates/deps.js';
import { NhGateError } from '../../src/errors.js';

// Each test its own results dir and GPU lock; at the end every leg log in them re-judges to its leg's verdict.
const isolate = isolatedResults();

// The real reference engine, built once for the whole test run (ENGINE's shared helper).
describe('the live gates on the reference engine (cpu)', () => {
  beforeAll(async () => {
    await ensureEngineBuilt();
  }, 600_000);

  it('a3: STRICT PASS judged by the harness, per-token with its terms, engine cross-checked, all files written', async () => {
    const inputs = loadInputs({ command: 'a3' });
    const out = await runA3({ argv: ['a3'], inputs, mode: 'decode', jobs: 2, resultsBase: isolate() }, await realDeps());
    expect(out.result.verdict.word).toBe('STRICT PASS');
    expect(out.exitClass).toBe('passed');
    const leg = out.result.legs[0]!;
    expect(leg.tokens?.source).toBe('events');
    expect(leg.tokens?.compared).toBeGreaterThan(0);
    expect(leg.crossCheck?.agree).toBe(true);
    const pot = leg.quantities.perOutputToken!;
    expect(pot.status).toBe('measured');
    if (pot.status === 'measured') {
      expect(pot.terms.tokensCompared!.value).toBe(leg.tokens!.compared);
      expect(pot.value).toBeCloseTo((pot.terms.decodeWindowS!.value as number) / leg.tokens!.compared, 12);
    }
    expect(out.result.build?.outputs.every((o) => /^[0-9a-f]{64}$/.test(o.sha256 ?? ''))).toBe(true);
    expect(leg.binarySha256).toBe(out.result.build?.outputs.find((o) => o.path.endsWith('/nh-ref-gen'))?.sha256);
    for (const f of ['result.json', 'summary.md', 'junit.xml', 'build.log', leg.logFile, leg.eventsFile!]) expect(existsSync(join(out.result.runDir, f))).toBe(true);
    const saved = JSON.parse(readFileSync(join(out.result.runDir, 'result.json'), 'utf8'));
    expect(saved.schemaVersion).toBe(1);
    expect(saved.legs[0].quantities.perOutputToken.status).toBe('measured');
    const ledger = readFileSync(join(out.result.runDir, '..', '..', 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger.at(-1)).toMatchObject({ command: 'a3', verdict: 'STRICT PASS', siliconKey: expect.stringMatching(/^cpu:/) });
  });

  it('a3 --arch 121a on a host without that GPU: VOID (NO_SUCH_SILICON), nothing run on the CPU instead', async () => {
    const inputs = loadInputs({ command: 'a3' });
    const out = await runA3({ argv: [], inputs, arch: '121a', mode: 'decode', jobs: 2, resultsBase: isolate() }, await realDeps());
    expect(out.exitClass).toBe('void');
    expect(formatReason(out.result.verdict.reasons[0]!)).toMatch(/^NO_SUCH_SILICON: --arch 121a claims compute capability 12\.1/);
    expect(out.result.legs).toHaveLength(0);
    expect(out.result.build).toBeNull();
  });

  it('ab MAMBA_DECODE_STEP under the shipped gate: SUPPORTED with its interval, gate sha recorded, counters differ', async () => {
    const gatePath = join(repoRoot, 'gates', 'nh-ref', 'decode-step-ab.json');
    const inputs = loadInputs({ command: 'ab', flag: 'MAMBA_DECODE_STEP', gate: gatePath });
    const out = await runAb({ argv: [], inputs, repeats: 2, seed: 1, mode: 'decode', jobs: 2, resultsBase: isolate() }, await realDeps());
    expect(out.result.verdict.word).toBe('SUPPORTED');
    expect(out.result.gate?.sha256).toMatch(/^[0-9a-f]{64}$/);
    const shas = new Set(out.result.legs.map((l) => l.binarySha256));
    expect(shas.size).toBe(1);
    const cmp = out.result.comparison;
    if (cmp?.kind !== 'ab') throw new Error('an A/B comparison');
    expect(cmp.metrics[0]!.interval!.hi).toBeLessThan(0.5);
    expect(cmp.counterDiff.map((d) => d.field)).toContain('chunk_scan_calls');
    expect(out.result.legs.map((l) => l.arm).join('')).toBe('ABBA');
  });

  it('refuses a gate whose kind does not match the command, and an unknown flag (listing the known ones)', () => {
    const a3Gate = join(repoRoot, 'gates', 'nh-ref', 'a3.json');
    expect(() => loadInputs({ command: 'ab', gate: a3Gate, flag: 'MAMBA_DECODE_STEP' })).toThrow(/is of kind 'a3', but this is 'nh-gate ab'/);
    let err: unknown;
    try { loadInputs({ command: 'ab', flag: 'NOPE' }); } catch (e) { err = e; }
    expect((err as NhGateError).code).toBe('UNKNOWN_FLAG');
    expect((err as NhGateError).hint).toBe('use one of: DEVICE_MAMBA, MAMBA_DECODE_STEP');
  });

  it('a golden captured from another checkpoint is bad input: the engine refuses it and a3 exits as a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-golden-'));
    const g = JSON.parse(readFileSync(join(repoRoot, 'goldens', 'nh-ref-tiny', 'golden.json'), 'utf8'));
    g.checkpoint.revision = '0'.repeat(64);
    writeFileSync(join(dir, 'golden.json'), JSON.stringify(g));
    const inputs = loadInputs({ command: 'a3', golden: join(dir, 'golden.json') });
    const out = await runA3({ argv: [], inputs, mode: 'decode', jobs: 2, resultsBase: isolate() }, await realDeps());
    expect(out.exitClass).toBe('usage');
    expect(out.result.legs[0]!.voidReasons.map((v) => `${v.code}: ${v.message}`).join(' ')).toMatch(/ENGINE_REFUSED: golden .* was captured from checkpoint revision 0000/);
  });
});

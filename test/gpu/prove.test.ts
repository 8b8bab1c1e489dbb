// scripts/gpu/prove.sh on this host (issue #23): its CPU plumbing, selection, slots, budget and exit status,
// with this checkout's node and dist/ (NH_PROVE_LOCAL=1). The GPU checks themselves run on the H200.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/engine.js';

const script = join(repoRoot, 'scripts/gpu/prove.sh');
const slots = join(repoRoot, 'test/gpu/fixtures/slots');

async function prove(checks: string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'nh-prove-'));
  const out = join(dir, 'OUT');
  const r = await execa('bash', [script, checks], {
    reject: false,
    env: { ...process.env, NH_PROVE_LOCAL: '1', NH_PROVE_STAGE: join(dir, 'stage'), OUT: out, NH_GPU_JOBS: '1', ...env },
  });
  const summary = readFileSync(join(out, 'summary.txt'), 'utf8');
  return { ...r, out, dir, summary, files: readdirSync(out).sort() };
}

describe('scripts/gpu/prove.sh here (NH_PROVE_LOCAL=1)', () => {
  it('NH_GPU_ARCH=cpu: the GPU checks and slots are SKIPPED by name, probe runs, the evidence comes back in ≤ 8 files', async () => {
    const r = await prove('probe,calibrate,busy-cli,ab-long,a3-long,mutants,llama', { NH_GPU_ARCH: 'cpu' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.summary).toMatch(/^PASS +probe +exit 0 — exit 0; silicon +cpu-only/m);
    for (const name of ['calibrate', 'busy-cli', 'ab-long', 'a3-long', 'mutants', 'llama']) {
      expect(r.summary).toMatch(new RegExp(`^SKIPPED +${name} +needs a GPU — NH_GPU_ARCH=cpu: not a GPU result$`, 'm'));
    }
    expect(r.summary).toMatch(/^1 PASS, 0 FAIL, 6 SKIPPED \(calibrate, busy-cli, ab-long, a3-long, mutants, llama\), 0 NOT RUN\nbattery: PASSED$/m);
    expect(r.files).toEqual(['COMMIT', 'evidence.tgz', 'prove.log', 'summary.txt']);
    expect(readFileSync(join(r.out, 'COMMIT'), 'utf8')).toMatch(/^packed from: [0-9a-f]{40}\n.*\nran: .* arch cpu; jobs 1; budget 570s; checks probe,calibrate/);
    const tar = await execa('tar', ['-tzf', join(r.out, 'evidence.tgz')]);
    expect(tar.stdout).toMatch(/checks\.jsonl/);
    expect(tar.stdout).toMatch(/probe\.txt/);
  });

  it('nothing but GPU checks on cpu judges nothing: exit 3; an unknown name is a usage error', async () => {
    const r = await prove('calibrate,ab-medium', { NH_GPU_ARCH: 'cpu' });
    expect(r.exitCode).toBe(3);
    expect(r.summary).toMatch(/battery: NOTHING JUDGED/);
    const bad = await execa('bash', [script, 'probe,nope'], { reject: false });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/no check named 'nope'/);
  });

  it('slots: a script that judges itself, one that fails, one not in the tree (SKIPPED)', async () => {
    const r = await prove('ab-sequential,mutants', {
      NH_GPU_ARCH: '90', NH_PROVE_SLOT_MUTANTS: join(slots, 'pass.sh'), NH_PROVE_SLOT_AB_SEQUENTIAL: join(slots, 'fail.sh'),
    });
    expect(r.exitCode).toBe(1);
    expect(r.summary).toMatch(/^FAIL +ab-sequential +the slot script exits 0 — exit 1: something went wrong on the way$/m);
    expect(r.summary).toMatch(/^PASS +mutants\/mutant-a +RED under its named test — RED \(exit 1\)$/m);
    expect(r.summary).toMatch(/^PASS +mutants\/mutant-b /m);
    expect(r.summary).toMatch(/2 PASS, 1 FAIL \(ab-sequential\)/);
    expect(readFileSync(join(r.dir, 'stage/slots/mutants/env.txt'), 'utf8')).toMatch(/^OUT=.*stage\/slots\/mutants arch=90 step_s=\d+$/m);
    const absent = await prove('mutants', { NH_GPU_ARCH: '90', NH_PROVE_SLOT_MUTANTS: join(slots, 'absent.sh') });
    expect(absent.summary).toMatch(/^SKIPPED +mutants +slot: runs .*absent\.sh — the script is not in this tree yet$/m);
  });

  it('budget: a check whose estimate does not fit is NOT RUN by name; one that runs past what is left is stopped and FAILs', async () => {
    const r = await prove('ab-sequential,mutants', {
      NH_GPU_ARCH: '90', NH_PROVE_BUDGET_S: '30', NH_PROVE_EST: 'mutants=2',
      NH_PROVE_SLOT_MUTANTS: join(slots, 'hang.sh'), NH_PROVE_SLOT_AB_SEQUENTIAL: join(slots, 'pass.sh'),
    });
    expect(r.exitCode).toBe(1);
    expect(r.summary).toMatch(/^NOT RUN +ab-sequential +budget: needs ~180 s — \d+ s of 30 s left — run it alone: scripts\/gpu\/prove\.sh ab-sequential$/m);
    expect(r.summary).toMatch(/^FAIL +mutants +finishes within the \d+ s left — stopped after \d+ s: the check did not finish$/m);
  }, 120_000);
});

// The mutate proofs on device code, with the real nvcc and no GPU: the CUDA fixture (one kernel file, one
// host file, a doctest suite whose device case skips loudly without a GPU) through the real CLI.
// Two compiles of one .cu differ only by nvcc's temp-file name (/tmp/tmpxft_<pid>_<n>-6_<file>.cudafe1.cpp,
// the host object's FILE symbol); with --objdir-as-tempdir (what native/engine passes) they are identical,
// so each proof holds byte for byte: a restore rebuilds the baseline sha, an unchanged binary means
// equivalent, a real change to device code changes the binary. Without the flag the row says so by name.
import { describe, expect, it } from 'vitest';
import { CUDA_FIXTURE, ensureDist, gitStatus, makeRepo, runMutateCli } from './helpers.js';
import { needsTitle } from '../helpers/needs.js';

// Compiling CUDA takes minutes on 2 cores, so CI opts in as for the engine's CUDA arm (NH_REF_CUDA_COMPILE=1, needs nvcc).
const enabled = process.env['NH_REF_CUDA_COMPILE'] === '1';

interface Row { id: string; verdict: string; reason: string | null; detail: string; binarySha: string | null; restoreSha: string | null; suite: { counts: { assertions: { total: number } } | null } | null }
interface Doc { exitCode: number; rows: Row[]; baselines: { binarySha: Record<string, string> }[]; userTree: { unchanged: boolean } }

async function mutate(configureExtra: string[], args: string[]): Promise<{ doc: Doc; root: string; stderr: string }> {
  ensureDist();
  const repo = makeRepo((r) => { r.recipe.configure = [...(r.recipe.configure as string[]), ...configureExtra]; }, CUDA_FIXTURE);
  const run = await runMutateCli(repo.root, ['--arch', '90', '--json', ...args]);
  return { doc: JSON.parse(run.stdout) as Doc, root: repo.root, stderr: run.stderr };
}

describe.skipIf(!enabled)(needsTitle('mutate proofs on device code, real nvcc (no GPU)', { what: 'the CUDA compile (nvcc, minutes on 2 cores)', ready: enabled, build: 'NH_REF_CUDA_COMPILE=1 npm test' }), () => {
  it('reproducible build: a device change moves the binary and its restore rebuilds the baseline sha; a comment-only change is NOT_REBUILT; skipped GPU cases are VOID GPU_SKIPPED', async () => {
    const { doc, root, stderr } = await mutate([], []);
    const base = doc.baselines[0]!.binarySha['scale']!;
    const row = (id: string): Row => doc.rows.find((r) => r.id === id)!;
    expect(row('self-host'), stderr).toMatchObject({ verdict: 'CAUGHT', restoreSha: base });
    // A real change to device code: another binary, judged, then the same bytes back.
    const sign = row('device-sign');
    expect(sign.binarySha).not.toBe(base);
    expect(sign.restoreSha).toBe(base);
    expect(sign).toMatchObject({ verdict: 'VOID', reason: 'GPU_SKIPPED' });
    expect(sign.suite!.counts!.assertions.total).toBe(0);
    // Equivalent by binary: the comment changes no code, and the sha shows it.
    expect(row('device-comment')).toMatchObject({ verdict: 'VOID', reason: 'NOT_REBUILT', binarySha: base, restoreSha: base });
    expect(doc.exitCode).toBe(3); // a device row with no GPU measured nothing: never a pass, never a survivor
    expect(doc.userTree.unchanged).toBe(true);
    expect(gitStatus(root)).toBe('');
  }, 1_200_000);

  it("nvcc's default temp names: the same device file built twice gives two binaries, read as NOT_REPRODUCIBLE with the fix, not as a restore gone wrong", async () => {
    const { doc, stderr } = await mutate(['-DCUDAFIX_OBJTEMP=OFF'], ['--only', 'device-sign']);
    const sign = doc.rows.find((r) => r.id === 'device-sign')!;
    expect(sign, stderr).toMatchObject({ verdict: 'VOID', reason: 'NOT_REPRODUCIBLE' });
    expect(sign.detail).toMatch(/built twice gave [0-9a-f]{16} and [0-9a-f]{16} \(baseline [0-9a-f]{16}\)/);
    expect(sign.detail).toContain('--objdir-as-tempdir');
    expect(doc.exitCode).toBe(3);
  }, 1_200_000);
});

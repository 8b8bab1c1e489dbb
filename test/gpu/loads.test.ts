// The calibration's loads and its driver script off the GPU (issue #23): the torch program's control flow over a
// stand-in torch, and scripts/calibrate/run.mjs end to end over the stand-in NVML and nvidia-smi with a stand-in
// load. The real loads and the real NVML run in scripts/gpu/prove.sh on the H200.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/engine.js';
import { ensureAddonBuilt, FAKE_NVML, pathWithSmi } from '../sampler/helpers.js';

const fixtures = join(repoRoot, 'test/gpu/fixtures');
const torchLoad = join(repoRoot, 'native/calibrate/torch_bursts.py');

describe('native/calibrate/torch_bursts.py over a stand-in torch', () => {
  const run = (args: string[], env: Record<string, string> = {}) =>
    execa('python3', [torchLoad, ...args], { reject: false, env: { ...process.env, PYTHONPATH: join(fixtures, 'faketorch'), PYTHONDONTWRITEBYTECODE: '1', ...env } });

  it('prints LOAD READY, then its event-timed busy share near the duty as its last line', async () => {
    const r = await run(['--duty', '0.5', '--seconds', '1.5', '--seed', '3', '--ready-line']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('LOAD READY');
    const j = JSON.parse(lines.at(-1)!);
    expect(j).toMatchObject({ variant: 'torch-bursts', pattern: 'bursts', seed: 3, dutyTarget: 0.5, device: 'Fake GPU 0', torch: '0.0-fake' });
    expect(j.monoEndS - j.monoStartS).toBeGreaterThanOrEqual(1.5);
    expect(j.trueBusyFraction).toBeCloseTo(j.busyMs / j.windowMs, 5);
    // Host sleeps stand in for kernels here, so the share is only roughly the duty; on a GPU the events time kernels.
    expect(j.trueBusyFraction).toBeGreaterThan(0.2);
    expect(j.trueBusyFraction).toBeLessThan(0.8);
  });

  it('bad arguments exit 2 before importing torch; no CUDA device exits 3', async () => {
    expect((await run(['--duty', '1.5'])).exitCode).toBe(2);
    const none = await run(['--duty', '0.5', '--seconds', '0.1'], { FAKE_TORCH_NO_CUDA: '1' });
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toMatch(/torch sees no CUDA device/);
  });
});

describe('scripts/calibrate/run.mjs over the stand-in NVML and nvidia-smi', () => {
  it('rows, checks and tables: a 40% reading over a 40% load passes, by the driver-readings rule', async () => {
    ensureAddonBuilt();
    const out = mkdtempSync(join(tmpdir(), 'nh-cal-'));
    const load = join(fixtures, 'fake-load.mjs');
    const r = await execa(process.execPath, [join(repoRoot, 'scripts/calibrate/run.mjs'), '--out', out, '--seconds', '3', '--duties', '0.4',
      '--variants', 'full-gpu,torch-bursts', '--duty-bin', load, '--torch-load', load, '--python', process.execPath], {
      reject: false,
      env: { ...process.env, NH_GATE_NVML_LIBRARY: FAKE_NVML, PATH: pathWithSmi(true), FAKE_NVML_UTIL_PCT: '40' },
    });
    const cal = JSON.parse(readFileSync(join(out, 'calibration.json'), 'utf8'));
    const byName = Object.fromEntries(cal.checks.map((c: { name: string }) => [c.name, c]));
    expect(byName['busy full-gpu 40%'], r.stderr).toMatchObject({ ok: true, threshold: '|nh-gate − truth| ≤ 1 pt over a window ≥ 3 s' });
    expect(byName['busy torch-bursts 40%']).toMatchObject({ ok: true });
    expect(cal.rows[0]).toMatchObject({ variant: 'full-gpu', dutyTarget: 0.4, afterPct: 40.5, beforePct: 40, tailCovered: true, utilGaps: 0 });
    expect(byName['GPM SM_UTIL full-gpu 40%']).toMatchObject({ ok: false, figure: '10.00% vs truth 40.00%' }); // the stand-in's GPM reads 10
    expect(byName['sampler CPU vs nvidia-smi loop']).toBeDefined();
    expect(byName['nvidia-smi backend samples a real window']).toMatchObject({ ok: true });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/checks passed; failed: .*GPM SM_UTIL full-gpu 40%/);
    expect(readFileSync(join(out, 'busy-table.md'), 'utf8')).toMatch(/^\| full-gpu \| 40% \| 3\.0 s \| 40\.00% \| 40\.50% \| \+0\.50 pts \| 40\.00% \| \+0\.00 pts \|$/m);
  }, 120_000);
});

// The addon's loader and its install-time build: a missing, broken or unbuildable addon is a stated
// reason, and the install never fails because of it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFrom, unavailableLine } from '../../src/sampler/load.js';
import { EXPECTED_ABI_VERSION } from '../../src/sampler/binding.js';
import { ADDON, ensureAddonBuilt, ROOT } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'nh-load-'));
const buildScript = join(ROOT, 'scripts/build-addon.mjs');

describe('loading the addon', () => {
  it('a built addon loads (no GPU, no NVML needed) and declares its ABI', () => {
    ensureAddonBuilt();
    const r = loadFrom(ADDON);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.binding.abiVersion).toBe(EXPECTED_ABI_VERSION);
  });
  it('a missing .node is a reason naming the path and the fix', () => {
    const r = loadFrom(join(dir, 'absent.node'));
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(r.reason).toMatch(/absent\.node does not exist .*build-addon\.mjs/);
  });
  it('a broken .node is a reason carrying the loader error', () => {
    const bad = join(dir, 'broken.node');
    writeFileSync(bad, 'not an ELF file');
    const r = loadFrom(bad);
    expect(r).toMatchObject({ ok: false });
    if (!r.ok) expect(unavailableLine(r.reason)).toMatch(/^native sampler unavailable: .*broken\.node failed to load: .*(invalid ELF header|file too short)/);
  });
});

describe('scripts/build-addon.mjs (the install script)', () => {
  it('exits 0 and says why when told to skip', () => {
    const r = spawnSync(process.execPath, [buildScript], { env: { ...process.env, NH_GATE_SKIP_ADDON: '1' }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('native sampler unavailable: NH_GATE_SKIP_ADDON=1');
  });
  it('exits 0 and says why when the toolchain is missing (no cmake on PATH)', () => {
    const out = join(dir, 'nobuild');
    const r = spawnSync(process.execPath, [buildScript, '--out', out], { env: { ...process.env, PATH: '/nonexistent' }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^native sampler unavailable: the addon build failed/m);
  });
  it('is the package install script', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.install).toContain('scripts/build-addon.mjs');
  });
});

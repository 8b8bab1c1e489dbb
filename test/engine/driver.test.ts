import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { EngineEventSchema } from '../../src/config/events.js';
import { GoldenSchema } from '../../src/config/golden.js';
import { ensureEngineBuilt, repoRoot } from '../helpers/engine.js';

const goldenDir = path.join(repoRoot, 'goldens', 'nh-ref-tiny');

async function drive(env: Record<string, string>, args: string[]) {
  const e = await ensureEngineBuilt();
  const ckpt = await e.checkpoint('tiny');
  return execa(e.driver, ['--checkpoint', ckpt, '--preset', 'tiny', ...args], { env, reject: false, all: true });
}

function perToken(out: string): number {
  const m = /\[nh-ref\] timing: mode=\S+ generated=(\d+) wall=([\d.]+)s/.exec(out);
  if (!m) throw new Error(`no timing line in:\n${out}`);
  return Number(m[2]) / Number(m[1]);
}

describe('nh-ref-gen against the oracle golden (tiny)', () => {
  it('the golden exists and was captured from the pinned tiny checkpoint', async () => {
    const e = await ensureEngineBuilt();
    const info = await execa(e.ckptTool, ['--preset', 'tiny', '--print-sha'], { all: true });
    const golden = GoldenSchema.parse(JSON.parse(readFileSync(path.join(goldenDir, 'golden.json'), 'utf8')));
    expect(info.stdout.split(' ')[1]).toBe(golden.checkpoint.revision);
  });

  for (const decodeStep of ['1', '0']) {
    it(`STRICT PASS on every prompt at full width, both modes, NH_REF_MAMBA_DECODE_STEP=${decodeStep}`, async () => {
      const golden = GoldenSchema.parse(JSON.parse(readFileSync(path.join(goldenDir, 'golden.json'), 'utf8')));
      const run = await drive({ NH_REF_MAMBA_DECODE_STEP: decodeStep }, ['--golden', goldenDir, '--mode', 'both']);
      const out = run.all ?? '';
      expect(run.exitCode, out).toBe(0);
      const total = golden.prompts.reduce((n, p) => n + p.tokens.length, 0);
      const n = golden.prompts.length;
      for (const mode of ['decode', 'fresh-prefill']) {
        expect(out).toContain(`TOKEN MATCH: ${total}/${total} over ${n} prompt(s) (full rows=${n}, short rows=0, mode=${mode})`);
      }
      for (const p of golden.prompts) {
        expect(out).toContain(`prompt ${p.id}: prompt_tokens=${p.promptTokens.length} generated=${p.tokens.length} golden_width=${p.tokens.length} compared=${p.tokens.length} matched=${p.tokens.length}`);
      }
      expect(out).toMatch(/^\[nh-ref\] STRICT PASS$/m);
      expect(out).not.toMatch(/SHORT RUN|DIVERGENCE|reference-tier/);
    });
  }

  it('the re-scan arm costs several times more per decode token than the single-step arm', async () => {
    const best = async (v: string) => {
      let min = Infinity;
      for (let i = 0; i < 3; i++) min = Math.min(min, perToken((await drive({ NH_REF_MAMBA_DECODE_STEP: v }, ['--golden', goldenDir])).all ?? ''));
      return min;
    };
    const step = await best('1');
    const rescan = await best('0');
    expect(rescan / step).toBeGreaterThan(4);
  });

  it('--events writes one schema-valid JSON object per event, monotonic, with counters under NH_REF_ARM_TRACE', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nh-ref-events-'));
    const file = path.join(dir, 'events.jsonl');
    const run = await drive({ NH_REF_ARM_TRACE: '1' }, ['--golden', goldenDir, '--events', file]);
    expect(run.exitCode).toBe(0);
    const events = readFileSync(file, 'utf8').trim().split('\n').map((l) => EngineEventSchema.parse(JSON.parse(l)));
    expect(events[0]!.event).toBe('load_start');
    expect(events[1]!.event).toBe('load_end');
    expect(events.at(-1)).toMatchObject({ event: 'done', exitCode: 0 });
    const t = events.map((ev) => BigInt(ev.tNs));
    for (let i = 1; i < t.length; i++) expect(t[i]! >= t[i - 1]!).toBe(true);
    const tokens = events.filter((ev) => ev.event === 'token');
    expect(tokens).toHaveLength(128);
    const counters = events.filter((ev) => ev.event === 'counters');
    // one prefill step and 31 decode steps per prompt
    expect(counters).toHaveLength(4 * 32);
    const decode = counters.filter((ev) => ev.event === 'counters' && ev.fields['nd'] === 1);
    expect(decode).toHaveLength(4 * 31);
    for (const ev of decode) if (ev.event === 'counters') expect(ev.fields).toMatchObject({ state_update_rows: 3, chunk_scan_calls: 0, device_blocks: 0 });
    expect((run.all ?? '').match(/^ARM step T=1 nd=1 np=0 state_update_rows=3 chunk_scan_calls=0 /gm)).toHaveLength(4 * 31);
  });

  it('bad input: named message and the documented exit code', async () => {
    const e = await ensureEngineBuilt();
    const flag = await drive({ NH_REF_DEVICE_MAMBA: 'maybe' }, ['--load-only']);
    expect(flag.exitCode).toBe(2);
    expect(flag.all).toContain("NH_REF_DEVICE_MAMBA='maybe' is not a value this engine knows");
    const device = await drive({ NH_REF_DEVICE_MAMBA: '1' }, ['--golden', goldenDir]);
    expect(device.exitCode).toBe(2);
    expect(device.all).toContain('REFUSING: NH_REF_DEVICE_MAMBA=1 but this nh-ref-gen was built without CUDA');
    const missing = await execa(e.driver, ['--checkpoint', '/nonexistent.ckpt'], { reject: false, all: true });
    expect(missing.exitCode).toBe(2);
    expect(missing.all).toContain('CHECKPOINT_MISSING');
    const wrongPreset = await drive({}, ['--preset', 'medium', '--load-only']);
    expect(wrongPreset.exitCode).toBe(2);
    expect(wrongPreset.all).toContain('CHECKPOINT_PRESET_MISMATCH');
    const noGolden = await drive({}, ['--golden', path.join(repoRoot, 'goldens', 'no-such-golden')]);
    expect(noGolden.exitCode).toBe(2);
    expect(existsSync(e.driver)).toBe(true);
  });
});

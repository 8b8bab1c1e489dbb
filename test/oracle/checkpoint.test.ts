import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCheckpoint, readCheckpoint } from '../../src/oracle/checkpoint.js';
import { NhGateError } from '../../src/errors.js';
import { SMALL_CONFIG, writeFixture } from './fixture.js';

function refusal(fn: () => unknown): NhGateError {
  try {
    fn();
  } catch (err) {
    if (err instanceof NhGateError) return err;
    throw err;
  }
  throw new Error('expected a refusal, got a checkpoint');
}

describe('checkpoint reader', () => {
  it('reads every tensor back at float32 precision and reports the content sha256', () => {
    const bytes = writeFixture();
    const ck = parseCheckpoint(bytes, 'fx.bin');
    expect(ck.config).toEqual(SMALL_CONFIG);
    expect(ck.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const lm = ck.tensors.get('lm_head.weight')!;
    expect(lm.shape).toEqual([256, 16]);
    // the last tensor sits at the end of the file: its last float must read back exactly
    const last = bytes.readFloatLE(bytes.length - 4);
    expect(lm.data[lm.data.length - 1]).toBe(last);
    // embed, 4 norms, 2 Mamba layers x 8, attention 4, MoE router+bias+4x(up,down), norm_f, lm_head
    expect(ck.tensors.size).toBe(1 + 4 + 2 * 8 + 4 + 2 + 4 * 2 + 2);
  });

  it('accepts a matching pin and refuses a wrong sha by naming both', () => {
    const bytes = writeFixture();
    const sha = createHash('sha256').update(bytes).digest('hex');
    expect(parseCheckpoint(bytes, 'fx.bin', sha).sha256).toBe(sha);
    const e = refusal(() => parseCheckpoint(bytes, 'fx.bin', '0'.repeat(64)));
    expect(e.exitClass).toBe('usage');
    expect(e.message).toContain(sha);
    expect(e.message).toContain('0'.repeat(64));
  });

  it('refuses one flipped data byte when pinned (content sha covers the data, not just the header)', () => {
    const bytes = writeFixture();
    const sha = createHash('sha256').update(bytes).digest('hex');
    bytes[bytes.length - 1]! ^= 1;
    expect(refusal(() => parseCheckpoint(bytes, 'fx.bin', sha)).message).toMatch(/sha256/);
  });

  it.each([
    ['bad magic', { magic: 'NHREFCK2' }, /magic is "NHREFCK2"/],
    ['missing tensor', { dropTensor: 'layers.1.mixer.k_proj.weight' }, /tensor layers\.1\.mixer\.k_proj\.weight is missing/],
    ['misshapen tensor', { extraShapeFor: 'layers.0.mixer.conv1d.weight' }, /layers\.0\.mixer\.conv1d\.weight has shape \[33, 4\], the config needs \[32, 4\]/],
    ['out of bounds', { offsetShiftFor: 'norm_f.weight' }, /norm_f\.weight bytes .* run past the data region/],
  ] as const)('refuses %s by name', (_label, opts, pattern) => {
    const e = refusal(() => parseCheckpoint(writeFixture(opts), 'fx.bin'));
    expect(e.code).toBe('BAD_INPUT');
    expect(e.message).toMatch(pattern);
    expect(e.message).toContain('fx.bin');
  });

  it('refuses a truncated file, a non-JSON header, and a header with heads-per-group 1', () => {
    const bytes = writeFixture();
    expect(refusal(() => parseCheckpoint(bytes.subarray(0, bytes.length - 8), 'fx.bin')).message).toMatch(/run past the data region/);
    expect(refusal(() => parseCheckpoint(bytes.subarray(0, 10), 'fx.bin')).message).toMatch(/shorter than/);
    const garbled = Buffer.from(bytes);
    garbled[12] = 0x7b + 1;
    expect(refusal(() => parseCheckpoint(garbled, 'fx.bin')).message).toMatch(/header is not UTF-8 JSON/);
    const hpg1 = writeFixture({ config: { ...SMALL_CONFIG, mamba: { ...SMALL_CONFIG.mamba!, nGroups: 8 } } });
    expect(refusal(() => parseCheckpoint(hpg1, 'fx.bin')).message).toMatch(/heads per group is 1/);
    const huge = Buffer.from(bytes);
    huge.writeUInt32LE(0xfffffff0, 8);
    expect(refusal(() => parseCheckpoint(huge, 'fx.bin')).message).toMatch(/header length .* runs past the end/);
  });

  it('names an unreadable path with UNREADABLE_FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-oracle-'));
    await expect(readCheckpoint(join(dir, 'nope.bin'))).rejects.toMatchObject({ code: 'UNREADABLE_FILE' });
    writeFileSync(join(dir, 'ok.bin'), writeFixture());
    expect((await readCheckpoint(join(dir, 'ok.bin'))).preset).toBe('fixture');
  });
});

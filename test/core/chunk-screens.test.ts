// The once-per-chunk shortcuts of the log reader (issue 25) keep every per-line guarantee: a line that
// straddles a chunk boundary is screened and cut as a line, whatever the chunk that completes it holds.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/exec/lines.js';
import { readDriverLog } from '../../src/gates/leg/logRead.js';
import { BUILTIN_PROFILES } from '../../src/profiles/builtin.js';
import { bootstrapRatioCi } from '../../src/stats/bootstrap.js';

const CHUNK = 64 * 1024;
const profile = BUILTIN_PROFILES.find((p) => p.name === 'nemotron-h')!;
const row = (p: number): string => `[nemotron-h] prompt ${p}: prompt_tokens=5  generated=32 golden_width=32 compared=32 matched=32 wall=3.21s`;

// A log whose bytes put `mid` (a Buffer) across the first chunk boundary, inside a prompt row.
function straddling(mid: Buffer): string {
  const head = Buffer.from(`${row(0)}\n`);
  const pad = Buffer.from(`${'x'.repeat(CHUNK - head.length - 40)}\n`);
  const rowText = row(1);
  const cutAt = CHUNK - head.length - pad.length; // bytes of the row left in the first chunk
  const line = Buffer.concat([Buffer.from(rowText.slice(0, cutAt - 1)), mid, Buffer.from(rowText.slice(cutAt - 1)), Buffer.from('\n')]);
  const file = join(mkdtempSync(join(tmpdir(), 'nh-chunks-')), 'driver.log');
  writeFileSync(file, Buffer.concat([head, pad, line, Buffer.from(`${row(2)}\n`)]));
  return file;
}

describe('log reader: chunk-level screens', () => {
  it('a NUL in a row that straddles the chunk boundary is screened, though the chunk that ends the row is clean', async () => {
    const r = await readDriverLog(straddling(Buffer.from([0])), profile);
    expect(r.hazards.nulLines).toBe(1);
    expect(r.report.prompts.map((p) => p.prompt)).toEqual([0, 2]);
  });

  it('bytes that are not UTF-8 at the boundary, followed by ASCII, mark that row invalid (not the end of the file)', async () => {
    const r = await readDriverLog(straddling(Buffer.from([0xc3])), profile);
    expect(r.hazards.invalidUtf8Lines).toBe(1);
    expect(r.report.prompts.map((p) => p.prompt)).toEqual([0, 2]);
  });

  it('a character split between two chunks is decoded whole, and its row is read', async () => {
    const r = await readDriverLog(straddling(Buffer.from(' é', 'utf8')), profile);
    expect(r.hazards.invalidUtf8Lines).toBe(0);
    // The row with é inside its fields no longer matches the row pattern; what matters is that it is text, not U+FFFD.
    expect(r.report.prompts.map((p) => p.prompt)).toEqual([0, 2]);
  });
});

describe('LineSplitter.each: the \\r rule once per chunk', () => {
  it('a line begun in a chunk with \\r and ended in a chunk without one still shows what a terminal shows', () => {
    const s = new LineSplitter('stdout');
    expect(s.push('10%\r55%', 1n)).toEqual([]);
    expect(s.push(' done\nnext\n', 2n)).toEqual([
      { tNs: 2n, stream: 'stdout', text: '55% done', crOverwrites: 1 },
      { tNs: 2n, stream: 'stdout', text: 'next' },
    ]);
  });
});

describe('bootstrap in typed arrays', () => {
  it('gives the interval the array-per-resample form gave (seeded, pinned)', () => {
    const ci = bootstrapRatioCi([0.0005, 0.0003, 0.0006, 0.0004, 0.00041], [0.0077, 0.0072, 0.0062, 0.0067]);
    expect(ci).toMatchObject({ resamples: 10000, lo: expect.any(Number), hi: expect.any(Number) });
    // Pinned from main's implementation (fresh arrays, Array.prototype.sort) on the same seed.
    expect([ci!.lo, ci!.hi]).toEqual(PINNED);
  });
});

const PINNED = [0.04316546762589928, 0.08633093525179857];

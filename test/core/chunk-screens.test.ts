// The once-per-chunk shortcuts of the log reader (issue 25) keep every per-line guarantee: a line that
// straddles a chunk boundary is screened and cut as a line, whatever the chunk that completes it holds.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/exec/lines.js';
import { LogTextReader, readDriverLog } from '../../src/gates/leg/logRead.js';
import { legHeaderLine, legLineMetaLine, legTrailerLine } from '../../src/results/legLog.js';
import { MAX_LINE_CHARS } from '../../src/exec/lines.js';
import { formatTimedLine } from '../../src/profiles/timed.js';
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

describe('a live leg reads what it writes, as a re-read of its log does', () => {
  // What observe.ts writes to a leg log, one string per write: header, timed rows, the cut-line note and the cut
  // line (past MAX_LINE_CHARS once the time is in front of it), \r, NUL, U+FFFD and non-ASCII text, the trailer.
  const header = legHeaderLine({ schemaVersion: 1, profile: 'nemotron-h', recipe: 'r', mode: 'decode', golden: 'g.json', events: null, deviceClaim: false, index: 0, arm: 'single', label: 'x' });
  const writes = [
    header,
    formatTimedLine(1.5, row(0)),
    legLineMetaLine({ truncatedChars: 7 }),
    formatTimedLine(1.6, `${row(1)} ${'y'.repeat(MAX_LINE_CHARS)}`),
    formatTimedLine(1.7, `a\u0000b`),
    formatTimedLine(1.8, `bad \uFFFD byte`),
    formatTimedLine(1.9, `naïve ${row(2)}`),
    formatTimedLine(2.0, row(3)),
    'plain line without a time',
    legTrailerLine({ exitCode: 0, signal: null, timedOut: false, interrupted: false, spawnError: null, foreignPids: [] }),
  ];
  it('the same report, hazards, header, trailer and bytes from the strings as written and from the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'nh-live-')), 'leg.log');
    const text = writes.map((w) => `${w}\n`).join('');
    writeFileSync(file, text);
    const live = new LogTextReader(profile);
    for (const w of writes) live.chunk(`${w}\n`);
    const fromLive = live.finish(Buffer.byteLength(text));
    const fromFile = await readDriverLog(file, profile);
    expect(fromLive).toEqual(fromFile);
    // The guards themselves saw something: a line cut, a NUL, a U+FFFD, the rows around them, both meta lines.
    expect(fromFile.hazards).toMatchObject({ nulLines: 1, invalidUtf8Lines: 1 });
    expect(fromFile.hazards.truncatedLines).toBeGreaterThan(0);
    expect(fromFile.report.prompts.map((p) => p.prompt)).toEqual([0, 3]);
    expect(fromFile.header?.label).toBe('x');
    expect(fromFile.trailer?.exitCode).toBe(0);
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

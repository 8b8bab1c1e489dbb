import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { floodRepo } from '../../bench/flood-repo.mjs';
import { LineSplitter, LineRing, MAX_LINE_CHARS, terminalText } from '../../src/exec/lines.js';
import { execa } from 'execa';
import { BIN, nhGate, resultsDir, runs } from './cli.js';

async function a3(env: Record<string, string>) {
  const repo = floodRepo(env);
  const dir = resultsDir();
  const r = await nhGate(['a3', '--recipe', repo.recipePath, '--json'], dir);
  expect(r.stderr).not.toMatch(/INTERNAL|\n\s+at /);
  const doc = JSON.parse(r.stdout);
  return { r, doc, leg: doc.legs[0], dir, log: readFileSync(join(runs(dir)[0]!.dir, doc.legs[0].logFile), 'utf8') };
}

describe('fault: hostile engine output', () => {
  it('a 100 MB line with no newline: cut at the cap, named, not read; memory bounded; the token lines still judged', async () => {
    const { r, doc, leg, dir } = await a3({ FLOOD_SHAPE: 'longline', FLOOD_BYTES: String(100_000_000) });
    expect(doc.verdict.word).toBe('STRICT PASS');
    expect(leg.outputNotes).toEqual([`HOSTILE_OUTPUT: 1 line(s) longer than ${MAX_LINE_CHARS} characters cut (${100_000_000 - MAX_LINE_CHARS} characters dropped, not read)`]);
    expect(r.peakMiB).toBeLessThan(250);
    // The cut line is in lastLines, itself cut: result.json never carries a megabyte line.
    expect(leg.process.lastLines).toContain(`${'x'.repeat(1000)}… (${100_000_000 - 1000} more characters)`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('invalid UTF-8 and NUL bytes are skipped by name; \\r progress bars read as the terminal shows them', async () => {
    const { doc, leg, log } = await a3({ FLOOD_SHAPE: 'hostile' });
    expect(doc.verdict.word).toBe('STRICT PASS');
    expect(leg.outputNotes[0]).toBe('HOSTILE_OUTPUT: 1 line(s) with invalid UTF-8 skipped; 1 line(s) with NUL bytes skipped; 1 line(s) with \\r progress overwrites read as the terminal shows them');
    expect(log).toContain('\tprogress 100%\n');
    expect(log).not.toContain('progress 10%');
  });

  it('a token row after a \\r progress bar is read (what the terminal shows is the row)', async () => {
    const { doc, leg } = await a3({ FLOOD_SHAPE: 'crprompt' });
    expect(leg.tokens.compared).toBe(8);
    expect(doc.verdict.word).toBe('STRICT PASS');
  });

  it('a NUL or a non-UTF-8 byte inside a token row: the row is skipped by name, the leg is not a pass (never a silent number)', async () => {
    const { r, doc, leg, dir } = await a3({ FLOOD_SHAPE: 'badrows' });
    expect(leg.outputNotes).toEqual(['HOSTILE_OUTPUT: 1 line(s) with invalid UTF-8 skipped; 1 line(s) with NUL bytes skipped']);
    expect(leg.tokens.compared).toBe(0);
    expect(leg.quantities.perOutputToken.status).toBe('refused');
    expect(['STRICT PASS', 'NEAR-TIE PASS']).not.toContain(doc.verdict.word);
    expect(r.code).not.toBe(0);
    // `analyze` of that leg log screens by the same rule, so it agrees with the leg.
    const an = await execa('node', [BIN, 'analyze', '--log', join(runs(dir)[0]!.dir, leg.logFile), '--profile', 'nh-ref', '--json'], { reject: false });
    const ad = JSON.parse(an.stdout);
    expect(ad.notes).toContain('HOSTILE_OUTPUT: 1 line(s) with invalid UTF-8 skipped; 1 line(s) with NUL bytes skipped');
    // the screened rows never reach the reader, and the re-judged leg agrees with the leg
    expect(ad.prompts).toEqual([]);
    expect(ad.leg.verdict).toBe(leg.verdict);
    expect(ad.exitCode).toBe(r.code);
  });
});

describe('the line splitter is bounded (pure)', () => {
  it('cuts a line at the cap across chunks and counts what it dropped', () => {
    const s = new LineSplitter('stdout', 10);
    expect(s.push('abcdefgh', 1n)).toEqual([]);
    expect(s.push('ijklmnop', 2n)).toEqual([]);
    expect(s.push('qr\nnext', 3n)).toEqual([{ tNs: 3n, stream: 'stdout', text: 'abcdefghij', truncatedChars: 8 }]);
    expect(s.flush(4n)).toEqual([{ tNs: 4n, stream: 'stdout', text: 'next' }]);
  });

  it('keeps the text after the last carriage return, and CRLF as one line end', () => {
    expect(terminalText('10%\r50%\r100%')).toEqual({ text: '100%', overwrites: 2 });
    expect(terminalText('done\r')).toEqual({ text: 'done', overwrites: 0 });
    expect(terminalText('x\r\r')).toEqual({ text: 'x', overwrites: 1 });
  });

  it('the ring keeps the last lines in order', () => {
    const ring = new LineRing(3);
    for (let i = 0; i < 7; i++) ring.push({ tNs: BigInt(i), stream: 'stdout', text: String(i) });
    expect(ring.lines().map((l) => l.text)).toEqual(['4', '5', '6']);
    expect(ring.total).toBe(7);
  });
});

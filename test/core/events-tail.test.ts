import fc from 'fast-check';

// A fixed seed, so CI is deterministic; set NHG_FC_SEED to explore others (a found counterexample becomes a unit test).
fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261202) });
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventsTail, readEngineEvents } from '../../src/gates/leg/events.js';

// The events file read while the driver writes it (issue 25) ends exactly where a read of the finished file
// ends: whatever the pieces the driver wrote it in, wherever a poll fell (inside a line, inside a UTF-8
// character), and whatever happened to the file under the reader (rewritten, cut, removed).
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;
const dir = mkdtempSync(join(tmpdir(), 'nh-events-tail-'));
let n = 0;
const fresh = (): string => join(dir, `e${n++}.jsonl`);

const LINES = [
  '{"event":"load_end","tNs":"1000","loadS":0.5}',
  '{"event":"prompt_start","tNs":"1100","prompt":0,"promptTokens":3,"mode":"decode"}',
  '{"event":"token","tNs":"1200","prompt":0,"index":0,"token":7,"mode":"decode"}',
  '{"event":"token","tNs":"1300","prompt":0,"index":1,"token":9,"mode":"décodé"}',
  '{"event":"counters","tNs":"1400","step":1,"fields":{"T":1,"😀":2}}',
  '{"event":"prompt_done","tNs":"1500","prompt":0,"generated":2,"mode":"decode"}',
  '{"event":"done","tNs":"1600","exitCode":0}',
  '',
  'not json',
  '{"event":"token"',
  '{"event":"token","tNs":"x","prompt":0,"index":0,"token":7,"mode":"decode"}',
];
// A file's bytes: lines, with or without a last newline, sometimes with a byte that is not UTF-8.
const fileBytes = fc.record({
  lines: fc.array(fc.constantFrom(...LINES), { maxLength: 20 }),
  newline: fc.boolean(),
  bad: fc.option(fc.nat(), { nil: undefined }),
}).map(({ lines, newline, bad }) => {
  const b = Buffer.from(lines.join('\n') + (newline ? '\n' : ''), 'utf8');
  if (bad === undefined || b.length === 0) return b;
  const at = bad % b.length;
  return Buffer.concat([b.subarray(0, at), Buffer.from([0xc3]), b.subarray(at)]);
});
// Where the writer's pieces end (byte offsets, any order; a poll follows each piece).
const cuts = fc.array(fc.nat(), { maxLength: 6 });

function writtenInPieces(path: string, bytes: Buffer, at: number[], tail: EventsTail): void {
  const ends = [...new Set(at.map((c) => (bytes.length ? c % bytes.length : 0)))].sort((a, b) => a - b);
  let from = 0;
  for (const end of [...ends, bytes.length]) {
    appendFileSync(path, bytes.subarray(from, end));
    tail.poll(true);
    from = end;
  }
}

describe('events read while the driver writes them', () => {
  it('end exactly as readEngineEvents of the finished file, wherever the polls fell', () => {
    fc.assert(fc.property(fileBytes, cuts, (bytes, at) => {
      const path = fresh();
      const tail = new EventsTail(path);
      tail.poll(true); // before the driver has created the file
      writtenInPieces(path, bytes, at, tail);
      expect(tail.finish()).toEqual(readEngineEvents(path));
      // Only appended to: never read again whole.
      expect(tail.endedBy).toBe('appended');
    }), { numRuns: runs(300) });
  });

  it('a file rewritten, cut or removed under the reader is read again whole', () => {
    fc.assert(fc.property(fileBytes, fileBytes, cuts, fc.constantFrom('rewrite', 'cut', 'remove'), (first, second, at, what) => {
      const path = fresh();
      const tail = new EventsTail(path);
      writtenInPieces(path, first, at, tail);
      if (what === 'rewrite') writeFileSync(path, second);
      if (what === 'cut') writeFileSync(path, first.subarray(0, Math.floor(first.length / 2)));
      if (what === 'remove') rmSync(path, { force: true });
      expect(tail.finish()).toEqual(readEngineEvents(path));
      // Read again whole exactly when the file no longer begins with what the polls read.
      const now = what === 'remove' ? null : what === 'rewrite' ? second : first.subarray(0, Math.floor(first.length / 2));
      expect(tail.endedBy).toBe(now === null ? 'missing' : now.length >= first.length && now.subarray(0, first.length).equals(first) ? 'appended' : 'read again');
    }), { numRuns: runs(200) });
  });

  it('a line ended after the last poll is read by the end; a file never written is missing', () => {
    const path = fresh();
    const tail = new EventsTail(path);
    writeFileSync(path, `${LINES[0]}\n${LINES[1]}\n${LINES[2]}\n${LINES[3]!.slice(0, 20)}`);
    tail.poll(true);
    appendFileSync(path, `${LINES[3]!.slice(20)}\n`);
    const r = tail.finish();
    expect(r.modes.get('decode')?.tokens.get(0)).toEqual([7]);
    expect(r.modes.get('décodé')?.tokens.get(0)).toEqual([undefined, 9]);
    expect(r.loadEndNs).toBe(1000n);
    expect(new EventsTail(fresh()).finish()).toMatchObject({ missing: true, garbage: 0 });
  });

  it('folds as the driver writes: a poll reads what was appended; polls closer than everyMs apart are one', () => {
    const path = fresh();
    const tail = new EventsTail(path, 60_000);
    writeFileSync(path, `${LINES[0]}\n${LINES[1]!.slice(0, 10)}`);
    tail.poll();
    expect(tail.readBytes).toBe(LINES[0]!.length + 1 + 10);
    appendFileSync(path, `${LINES[1]!.slice(10)}\n`);
    tail.poll(); // within the minute of the last: skipped
    expect(tail.readBytes).toBe(LINES[0]!.length + 1 + 10);
    tail.poll(true);
    expect(tail.readBytes).toBe(LINES[0]!.length + LINES[1]!.length + 2);
    // A rewrite after the polls: the end is the file's, not the polls'.
    writeFileSync(path, `${LINES[6]}\n`);
    expect(tail.finish()).toMatchObject({ doneExit: 0, loadEndNs: null });
  });

  it.skipIf(process.platform !== 'linux')('holds no file open between polls', () => {
    const path = fresh();
    writeFileSync(path, `${LINES[0]}\n`);
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    const tail = new EventsTail(path);
    for (let i = 0; i < 20; i++) tail.poll(true);
    expect(open()).toBe(before);
    tail.finish();
    expect(open()).toBe(before);
  });
});

import type { TimedLine } from './types.js';

// A line longer than this is cut here: a 100 MB line with no newline must not become a 100 MB string.
export const MAX_LINE_CHARS = 1 << 20;

type LineFn = (text: string, truncatedChars: number, crOverwrites: number, whole: boolean) => void;

// Splits a byte stream into lines stamped at the arrival of the chunk that completed them.
// Pure: the caller supplies the arrival time, so it is testable without a clock. Bounded: a line past
// maxLineChars keeps its head, the rest is dropped and counted on the line (truncatedChars).
// A `\r` progress bar keeps what a terminal would show: the text after the last carriage return.
export class LineSplitter {
  private parts: string[] = [];
  private partialChars = 0;
  private dropped = 0;
  constructor(private readonly stream: 'stdout' | 'stderr', private readonly maxLineChars = MAX_LINE_CHARS) {}

  push(chunk: string, tNs: bigint): TimedLine[] {
    const out: TimedLine[] = [];
    this.each(chunk, (text, truncatedChars, crOverwrites) => out.push(timedLine(tNs, this.stream, text, truncatedChars, crOverwrites)));
    return out;
  }

  // push without a TimedLine per line, for a reader of a 100 MB log: each complete line's text with its
  // dropped characters and \r overwrites (0 when none), and whether it lay whole in this chunk (so a
  // caller's once-per-chunk check covers it). A chunk with no \r skips the terminal rule for the lines
  // it holds whole: the check is made once per chunk, not once per line.
  each(chunk: string, fn: LineFn): void {
    const crFree = chunk.indexOf('\r') < 0;
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', from);
      if (nl < 0) break;
      if (crFree && this.partialChars === 0 && this.dropped === 0 && nl - from <= this.maxLineChars) fn(chunk.slice(from, nl), 0, 0, true);
      else {
        this.take(chunk, from, nl);
        this.cut(fn);
      }
      from = nl + 1;
    }
    this.take(chunk, from, chunk.length);
  }

  // A final line without a newline still counts once the stream ends.
  flush(tNs: bigint): TimedLine[] {
    if (this.partialChars === 0 && this.dropped === 0) return [];
    const out: TimedLine[] = [];
    this.cut((text, truncatedChars, crOverwrites) => out.push(timedLine(tNs, this.stream, text, truncatedChars, crOverwrites)));
    return out;
  }

  private take(chunk: string, from: number, end: number): void {
    const room = this.maxLineChars - this.partialChars;
    const n = end - from;
    if (n <= room) {
      if (n > 0) this.parts.push(from === 0 && end === chunk.length ? chunk : chunk.slice(from, end));
      this.partialChars += n;
      return;
    }
    if (room > 0) this.parts.push(chunk.slice(from, from + room));
    this.partialChars += Math.max(room, 0);
    this.dropped += n - Math.max(room, 0);
  }

  private cut(fn: LineFn): void {
    const raw = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    const dropped = this.dropped;
    this.parts = [];
    this.partialChars = 0;
    this.dropped = 0;
    const { text, overwrites } = terminalText(raw);
    fn(text, dropped, overwrites, false);
  }
}

function timedLine(tNs: bigint, stream: 'stdout' | 'stderr', text: string, truncatedChars: number, crOverwrites: number): TimedLine {
  const line: TimedLine = { tNs, stream, text };
  if (crOverwrites > 0) line.crOverwrites = crOverwrites;
  if (truncatedChars > 0) line.truncatedChars = truncatedChars;
  return line;
}

// What a terminal shows of a line: a trailing CR (CRLF) dropped, then the last non-empty `\r` segment.
export function terminalText(raw: string): { text: string; overwrites: number } {
  const s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (s.indexOf('\r') < 0) return { text: s, overwrites: 0 };
  const segs = s.split('\r');
  let i = segs.length - 1;
  while (i > 0 && segs[i] === '') i -= 1;
  return { text: segs[i]!, overwrites: segs.length - 1 };
}

// Keeps the last `capacity` lines of a stream (for lastLines), never the whole output.
export class LineRing {
  private buf: TimedLine[] = [];
  private next = 0;
  total = 0;
  constructor(private readonly capacity: number) {}

  push(l: TimedLine): void {
    this.total += 1;
    if (this.buf.length < this.capacity) this.buf.push(l);
    else {
      this.buf[this.next] = l;
      this.next = (this.next + 1) % this.capacity;
    }
  }

  lines(): TimedLine[] {
    return [...this.buf.slice(this.next), ...this.buf.slice(0, this.next)];
  }
}

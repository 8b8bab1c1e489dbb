import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { NhGateError } from '../../errors.js';
import { createDriverReader } from '../../profiles/reader.js';
import { parseTimedLine, timedS, timedTab } from '../../profiles/timed.js';
import { LineSplitter } from '../../exec/lines.js';
import { chunkNeedsScan, emptyHazards, screenText, type OutputHazards } from '../../profiles/hostile.js';
import type { DriverReport, Profile } from '../../profiles/types.js';
import { isMetaLine, parseMetaLine, type LegLogHeader, type LegLogLine, type LegLogTrailer } from '../../results/legLog.js';

export interface LogRead {
  report: DriverReport;
  bytes: number;
  // Whether the log carried nh-gate arrival times (a leg log from a run directory) on its lines.
  timed: boolean;
  // Cut, non-UTF-8, NUL and \r lines, screened by the same rule a live leg uses (so the two agree).
  hazards: OutputHazards;
  // nh-gate's own header and trailer when the log is a leg log (both null for a log captured elsewhere).
  header: LegLogHeader | null;
  trailer: LegLogTrailer | null;
}

// Streams a driver log line by line through the profile's reader: memory stays flat whatever the log size.
export async function readDriverLog(path: string, profile: Profile, opts: { allowEmpty?: boolean } = {}): Promise<LogRead> {
  let bytes: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    bytes = st.size;
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: cannot read the driver log (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'check the --log path');
  }
  if (bytes === 0 && !opts.allowEmpty) throw new NhGateError('BAD_INPUT', `${path}: the driver log is empty — there is nothing to analyze`, 'point --log at the captured driver output');
  const text = new LogTextReader(profile);
  try {
    await forEachChunk(path, (chunk) => text.chunk(chunk));
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: read failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'check the --log path');
  }
  return text.finish(bytes);
}

// The one reading of a log's text, fed in chunks of any size: nh-gate's own lines kept aside, every other
// line screened and offered to the profile's reader. readDriverLog feeds it a file; a live leg feeds it each
// string it writes to that file (observe.ts), so the leg is judged from what it wrote without reading it back,
// and `analyze --log` of the file reads the same lines.
export class LogTextReader {
  private readonly reader: ReturnType<typeof createDriverReader>;
  private timedLines = 0;
  private readonly hazards = emptyHazards();
  // Split by the live legs' line splitter (readline costs more than the parsing on a 100 MB log): memory
  // holds one chunk plus one line of at most MAX_LINE_CHARS, whatever the log holds.
  private readonly splitter = new LineSplitter('stdout');
  private header: LegLogHeader | null = null;
  private trailer: LegLogTrailer | null = null;
  // What the live splitter saw of the next line (cut, \r overwrites): it replaces what this reading sees.
  private pending: LegLogLine | null = null;
  // Whether the chunk being split holds a U+FFFD or a NUL: checked once per chunk, and per line only then.
  private scan = false;

  constructor(profile: Profile) {
    this.reader = createDriverReader(profile);
  }

  chunk(text: string): void {
    this.scan = chunkNeedsScan(text);
    this.splitter.each(text, this.onLine);
  }

  finish(bytes: number): LogRead {
    this.scan = true;
    for (const l of this.splitter.flush(0n)) this.onLine(l.text, l.truncatedChars ?? 0, l.crOverwrites ?? 0, false);
    return { report: this.reader.finish(), bytes, timed: this.timedLines > 0, hazards: this.hazards, header: this.header, trailer: this.trailer };
  }

  private readonly onLine = (raw: string, truncatedChars: number, crOverwrites: number, whole: boolean): void => {
    if (isMetaLine(raw)) {
      const m = parseMetaLine(raw);
      if (m && 'header' in m) this.header = m.header;
      else if (m && 'trailer' in m) this.trailer = m.trailer;
      else if (m) this.pending = m.line;
      return; // nh-gate's own lines are never offered to the engine's profile
    }
    // The time and text without an object per line (timed.ts): a 100 MB log holds a million of them.
    const tab = timedTab(raw);
    const text = tab < 0 ? raw : raw.slice(tab + 1);
    if (tab >= 0) this.timedLines += 1;
    const seen = this.pending ?? {};
    this.pending = null;
    if (screenText(text, seen.truncatedChars ?? truncatedChars, seen.crOverwrites ?? crOverwrites, this.hazards, this.scan || !whole)) this.reader.push(text, tab < 0 ? undefined : timedS(raw, tab));
  };
}

// 64 KiB: a chunk's text stays a young-generation string (a 1 MiB one went to the large-object space,
// fresh pages every chunk, and cost more than the parsing).
const CHUNK_BYTES = 64 * 1024;
// Chunks read between two turns of the event loop: synchronous reads (an awaited read per chunk left the
// thread idle between chunks, a third of a 100 MB analyze on a loaded host), with a turn every 4 MiB so
// timers and other I/O of the same process still run while a large log is read.
const CHUNKS_PER_TURN = 64;

// The file's text, chunk by chunk. An ASCII chunk (a log's usual case, checked once per chunk) is taken as
// one-byte text without the UTF-8 decoder, which cost more than the reading; a chunk after a non-ASCII one
// still goes through the decoder, which may hold the first bytes of a character split between chunks.
async function forEachChunk(path: string, fn: (chunk: string) => void): Promise<void> {
  // A leg log of one chunk or less (the usual leg) is read in one call.
  if (statSync(path).size <= CHUNK_BYTES) {
    const bytes = readFileSync(path);
    fn(bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'));
    return;
  }
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let decoding = false;
    for (let n = 1; ; n++) {
      const bytesRead = readSync(fd, buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const bytes = buf.subarray(0, bytesRead);
      const ascii = isAscii(bytes);
      fn(decoding || !ascii ? decoder.write(bytes) : bytes.toString('latin1'));
      decoding = !ascii;
      if (n % CHUNKS_PER_TURN === 0) await yieldToLoop();
    }
    const tail = decoder.end();
    if (tail) fn(tail);
  } finally {
    closeSync(fd);
  }
}

const PEEK_BYTES = 64 * 1024;

// Which profile a log speaks, from its first 64 KiB: a leg log's header names it; otherwise the built-in
// profile whose prefix starts the most lines. null when no line carries a known prefix.
export function detectProfile(path: string, profiles: readonly Profile[]): { ref: string; how: string } | null {
  let head = '';
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(PEEK_BYTES);
      head = buf.subarray(0, readSync(fd, buf, 0, PEEK_BYTES, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // unreadable: readDriverLog names it
  }
  const lines = head.split('\n');
  const first = lines[0] ? parseMetaLine(lines[0]) : null;
  if (first && 'header' in first) return { ref: first.header.profile, how: 'named by the leg log header' };
  let best: { ref: string; count: number } | null = null;
  for (const p of profiles) {
    let count = 0;
    for (const raw of lines) if (parseTimedLine(raw).text.startsWith(p.prefix)) count += 1;
    if (count > 0 && (!best || count > best.count)) best = { ref: p.name, count };
  }
  return best ? { ref: best.ref, how: `${best.count} line(s) in the first 64 KiB start with its prefix` } : null;
}

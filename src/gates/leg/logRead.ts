import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { NhGateError } from '../../errors.js';
import { createDriverReader } from '../../profiles/reader.js';
import { parseTimedLine } from '../../profiles/timed.js';
import { LineSplitter } from '../../exec/lines.js';
import { emptyHazards, screenLine, type OutputHazards } from '../../profiles/hostile.js';
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
  const reader = createDriverReader(profile);
  let timedLines = 0;
  const hazards = emptyHazards();
  // Streamed in 1 MiB chunks through the live legs' line splitter (readline costs more than the parsing on a
  // 100 MB log): memory holds one chunk plus one line of at most MAX_LINE_CHARS, whatever the file holds.
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const splitter = new LineSplitter('stdout');
  let header: LegLogHeader | null = null;
  let trailer: LegLogTrailer | null = null;
  // What the live splitter saw of the next line (cut, \r overwrites): it replaces what this re-read sees.
  let pending: LegLogLine | null = null;
  const onLines = (lines: ReturnType<LineSplitter['push']>): void => {
    for (const l of lines) {
      if (isMetaLine(l.text)) {
        const m = parseMetaLine(l.text);
        if (m && 'header' in m) header = m.header;
        else if (m && 'trailer' in m) trailer = m.trailer;
        else if (m) pending = m.line;
        continue; // nh-gate's own lines are never offered to the engine's profile
      }
      const { tS, text } = parseTimedLine(l.text);
      if (tS !== undefined) timedLines += 1;
      const seen = pending ? { stream: l.stream, tNs: l.tNs, text, ...pending } : { ...l, text };
      pending = null;
      if (screenLine(seen, hazards)) reader.push(text, tS);
    }
  };
  try {
    for await (const chunk of input as AsyncIterable<string>) onLines(splitter.push(chunk, 0n));
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: read failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'check the --log path');
  }
  onLines(splitter.flush(0n));
  const report = reader.report();
  return { report, bytes, timed: timedLines > 0, hazards, header, trailer };
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

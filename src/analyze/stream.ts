import { createReadStream, statSync } from 'node:fs';
import { NhGateError } from '../errors.js';
import { createDriverReader } from '../profiles/reader.js';
import { parseTimedLine } from '../profiles/timed.js';
import { LineSplitter } from '../exec/lines.js';
import { emptyHazards, screenLine, type OutputHazards } from '../profiles/hostile.js';
import type { DriverReport, Profile } from '../profiles/types.js';

export interface LogRead {
  report: DriverReport;
  bytes: number;
  // Whether the log carried nh-gate arrival times (a leg log from a run directory) on its lines.
  timed: boolean;
  // Cut, non-UTF-8, NUL and \r lines, screened by the same rule a live leg uses (so the two agree).
  hazards: OutputHazards;
}

// Streams a driver log line by line through the profile's reader: memory stays flat whatever the log size.
export async function readDriverLog(path: string, profile: Profile): Promise<LogRead> {
  let bytes: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    bytes = st.size;
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: cannot read the driver log (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'check the --log path');
  }
  if (bytes === 0) throw new NhGateError('BAD_INPUT', `${path}: the driver log is empty — there is nothing to analyze`, 'point --log at the captured driver output');
  const reader = createDriverReader(profile);
  let timedLines = 0;
  const hazards = emptyHazards();
  // Streamed in 1 MiB chunks through the live legs' line splitter (readline costs more than the parsing on a
  // 100 MB log): memory holds one chunk plus one line of at most MAX_LINE_CHARS, whatever the file holds.
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const splitter = new LineSplitter('stdout');
  const onLines = (lines: ReturnType<LineSplitter['push']>): void => {
    for (const l of lines) {
      const { tS, text } = parseTimedLine(l.text);
      if (tS !== undefined) timedLines += 1;
      if (screenLine({ ...l, text }, hazards)) reader.push(text, tS);
    }
  };
  try {
    for await (const chunk of input as AsyncIterable<string>) onLines(splitter.push(chunk, 0n));
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: read failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'check the --log path');
  }
  onLines(splitter.flush(0n));
  const report = reader.report();
  return { report, bytes, timed: timedLines > 0, hazards };
}

import { createReadStream, statSync } from 'node:fs';
import { NhGateError } from '../errors.js';
import { createDriverReader } from '../profiles/reader.js';
import { parseTimedLine } from '../profiles/timed.js';
import type { DriverReport, Profile } from '../profiles/types.js';

export interface LogRead {
  report: DriverReport;
  bytes: number;
  // Whether the log carried nh-gate arrival times (a leg log from a run directory) on its lines.
  timed: boolean;
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
  // Streamed in 1 MiB chunks and split by hand (readline costs more than the parsing on a 100 MB log);
  // memory holds one chunk plus one partial line, whatever the file size.
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const onLine = (raw: string): void => {
    const { tS, text } = parseTimedLine(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
    if (tS !== undefined) timedLines += 1;
    reader.push(text, tS);
  };
  let rest = '';
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      let start = 0;
      let nl = chunk.indexOf('\n');
      if (nl >= 0 && rest.length > 0) {
        onLine(rest + chunk.slice(0, nl));
        rest = '';
        start = nl + 1;
        nl = chunk.indexOf('\n', start);
      }
      while (nl >= 0) {
        onLine(chunk.slice(start, nl));
        start = nl + 1;
        nl = chunk.indexOf('\n', start);
      }
      rest += chunk.slice(start);
    }
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: read failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'check the --log path');
  }
  if (rest.length > 0) onLine(rest);
  const report = reader.report();
  return { report, bytes, timed: timedLines > 0 };
}

import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
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
  const input = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const rl = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const raw of rl) {
      const { tS, text } = parseTimedLine(raw);
      if (tS !== undefined) timedLines += 1;
      reader.push(text, tS);
    }
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `${path}: read failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, 'check the --log path');
  }
  const report = reader.report();
  return { report, bytes, timed: timedLines > 0 };
}

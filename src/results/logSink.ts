import { closeSync, openSync, writeSync } from 'node:fs';
import { diskFaultOf, type DiskFault } from '../io/diskFaults.js';

const FLUSH_BYTES = 1 << 20;

// A leg log written as lines arrive, through a bounded buffer: the log never sits in memory whole.
// A write error (a full disk) stops the log, is kept as data and counted; the leg itself goes on.
export interface LogSink {
  write(line: string): void;
  close(): LogSinkResult;
}

export interface LogSinkResult {
  bytes: number;
  droppedBytes: number;
  fault: DiskFault | null;
  error: string | null;
}

// Opens path for writing (truncating). Opening errors are returned by close(), never thrown.
export function openLogSink(path: string): LogSink {
  let fd: number | null = null;
  let error: string | null = null;
  let fault: DiskFault | null = null;
  let bytes = 0;
  let droppedBytes = 0;
  let buf: string[] = [];
  let bufBytes = 0;
  const fail = (err: unknown): void => {
    fault = diskFaultOf(err);
    error = (err as Error).message;
  };
  try {
    fd = openSync(path, 'w');
  } catch (err) {
    fail(err);
  }
  const flush = (): void => {
    if (bufBytes === 0) return;
    const chunk = Buffer.from(buf.join(''), 'utf8');
    buf = [];
    bufBytes = 0;
    if (fd === null || error !== null) {
      droppedBytes += chunk.length;
      return;
    }
    let off = 0;
    try {
      while (off < chunk.length) off += writeSync(fd, chunk, off);
    } catch (err) {
      fail(err);
    }
    bytes += off;
    droppedBytes += chunk.length - off;
  };
  return {
    write(line: string) {
      buf.push(line, '\n');
      bufBytes += line.length + 1;
      if (bufBytes >= FLUSH_BYTES) flush();
    },
    close() {
      flush();
      if (fd !== null) {
        try {
          closeSync(fd);
        } catch (err) {
          if (error === null) fail(err);
        }
      }
      return { bytes, droppedBytes, fault, error };
    },
  };
}

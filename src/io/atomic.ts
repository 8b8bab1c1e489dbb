import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { rethrowDiskFault } from './diskFaults.js';

// Writes a file atomically, so a reader or a Ctrl-C never sees half a result, golden or log: a temp file
// in the same directory, written whole (writeFileSync loops over short writes and throws ENOSPC), fsync'd,
// then renamed; the temp is removed on any failure. A full or read-only disk is DISK_FULL / UNWRITABLE
// naming the path. Our own, not write-file-atomic@6: its sync path writes a Buffer with one writeSync and
// ignores a short write, so on a full disk it renamed a truncated file over the target (seen on a 1 MB tmpfs).
export function writeAtomic(path: string, content: string | Buffer): void {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    rethrowDiskFault(err, path);
  }
}

import { closeSync, fsync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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

// writeAtomic for several files at once, each still whole or absent: all temps written, then fsync'd
// together (the flushes overlap, where one after another each waited for its own journal commit), then
// renamed in the order given. On a failure every temp is removed and the fault names its file.
export async function writeAtomicAll(files: ReadonlyArray<readonly [path: string, content: string | Buffer]>): Promise<void> {
  const open: Array<{ path: string; tmp: string; fd: number | null }> = [];
  let at = files[0]?.[0] ?? '';
  try {
    for (const [path, content] of files) {
      at = path;
      mkdirSync(dirname(path), { recursive: true });
      const f = { path, tmp: `${path}.tmp-${process.pid}-${Date.now()}`, fd: null as number | null };
      open.push(f);
      f.fd = openSync(f.tmp, 'w');
      writeFileSync(f.fd, content);
    }
    await Promise.all(open.map((f) => fsyncFd(f.fd!).catch((err: unknown) => Promise.reject(Object.assign(err as Error, { atPath: f.path })))));
    for (const f of open) {
      closeSync(f.fd!);
      f.fd = null;
    }
    for (const f of open) {
      at = f.path;
      renameSync(f.tmp, f.path);
    }
  } catch (err) {
    for (const f of open) {
      if (f.fd !== null) closeSync(f.fd);
      rmSync(f.tmp, { force: true });
    }
    rethrowDiskFault(err, (err as { atPath?: string }).atPath ?? at);
  }
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}

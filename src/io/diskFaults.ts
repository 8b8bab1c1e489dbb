import { statfsSync } from 'node:fs';
import { NhGateError } from '../errors.js';

// The results directory's own faults (a full or read-only disk) as named states, not internal errors.
export type DiskFault = 'DISK_FULL' | 'UNWRITABLE';

const FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

// The fault an fs error stands for, or null when it is something else (a bug: left to surface as internal).
export function diskFaultOf(err: unknown): DiskFault | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code && FULL.has(code)) return 'DISK_FULL';
  if (code && UNWRITABLE.has(code)) return 'UNWRITABLE';
  return null;
}

// Turns an fs error on a results path into DISK_FULL / UNWRITABLE naming the path; rethrows anything else.
export function rethrowDiskFault(err: unknown, path: string): never {
  const fault = diskFaultOf(err);
  const code = (err as NodeJS.ErrnoException).code;
  if (fault === 'DISK_FULL') throw new NhGateError('DISK_FULL', `no space left writing ${path} (${code})`, 'free space on that filesystem or point --results-dir at a larger one; legs already written are kept');
  if (fault === 'UNWRITABLE') throw new NhGateError('UNWRITABLE', `cannot write ${path} (${code})`, 'make the results directory writable or pass --results-dir DIR');
  // A path of the wrong type (results/resultsPaths.ts checks them first; this is for one that changed since).
  if (code === 'EISDIR' || code === 'ENOTDIR') throw new NhGateError('WRONG_PATH_TYPE', `cannot write ${path} (${code}: ${code === 'EISDIR' ? 'it is a directory' : 'a folder on its path is a file'})`, 'move what is in the way, or pass --results-dir DIR');
  throw err;
}

// Bytes free to this user on the filesystem holding path; null when statfs cannot say.
export function freeBytes(path: string): number | null {
  try {
    const s = statfsSync(path);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

// Writes a file atomically, so a reader or a Ctrl-C never sees half a result, golden or log. Uses the
// well-kept write-file-atomic (temp file in the same directory, fsync, rename, temp removed on failure).
export function writeAtomic(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic.sync(path, content);
}

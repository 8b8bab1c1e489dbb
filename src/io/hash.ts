import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';

// sha256 of bytes (or of a string's UTF-8 bytes), hex: the one hashing helper.
export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

// sha256 of a file's content, streamed; null when the file is absent (an output that was not produced).
export async function sha256File(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    const h = createHash('sha256');
    const s = createReadStream(path);
    s.on('error', () => resolve(null));
    s.on('data', (c) => h.update(c));
    s.on('end', () => resolve(h.digest('hex')));
  });
}

// sha256 of a file read whole, or null when it does not exist (small files on a synchronous path).
export function sha256FileSync(path: string): string | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}

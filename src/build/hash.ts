import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

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

// sha256 of a string (gate files are hashed as the bytes that were read).
export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

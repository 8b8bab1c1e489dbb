import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { sha256 } from '../io/hash.js';
import { sha256FileSync as fileSha } from '../io/hash.js';
import { dirname, join, relative, sep } from 'node:path';

// File effects of the mutation gate: hashing, writes that always move mtime forward, tree sync.

// The hashing and atomic-write helpers are the shared ones (src/io), named as the mutate code reads them.
export { sha256, sha256FileSync as fileSha } from '../io/hash.js';
export { writeAtomic } from '../io/atomic.js';

// Writes text and stamps an mtime strictly later than the file's previous one: ninja and make key on
// mtime, and a restored file older than its object silently keeps the mutant's object in the binary.
export function writeFresh(path: string, text: string | Buffer): void {
  let prevMs = 0;
  try {
    prevMs = statSync(path).mtimeMs;
  } catch {
    /* new file */
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  const nowMs = Date.now();
  const stampMs = Math.max(nowMs, prevMs + 1000);
  utimesSync(path, stampMs / 1000, stampMs / 1000);
}

// Every regular file under root, as sorted '/'-separated relative paths, skipping excluded dirs.
export function listFiles(root: string, exclude: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const ent of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, ent.name);
      const rel = relative(root, abs).split(sep).join('/');
      if (exclude(rel)) continue;
      if (ent.isDirectory()) walk(abs);
      else if (ent.isFile()) out.push(rel);
    }
  };
  if (existsSync(root)) walk(root);
  return out.sort();
}

// A content hash of a source tree (paths + bytes), to prove the user's tree is byte-identical afterwards.
export function treeSha(root: string, exclude: (rel: string) => boolean): { sha: string; files: number } {
  const h = createHash('sha256');
  const files = listFiles(root, exclude);
  for (const rel of files) h.update(rel).update('\0').update(sha256(readFileSync(join(root, rel)))).update('\n');
  return { sha: h.digest('hex'), files: files.length };
}

// Makes dst a copy of src (content only): changed or new files are written with a fresh mtime,
// files gone from src are removed, unchanged files keep their mtime so the build stays incremental.
export function syncTree(src: string, dst: string, exclude: (rel: string) => boolean): { written: number; removed: number } {
  const want = listFiles(src, exclude);
  const wantSet = new Set(want);
  let written = 0;
  let removed = 0;
  for (const rel of want) {
    const data = readFileSync(join(src, rel));
    const target = join(dst, rel);
    if (fileSha(target) !== sha256(data)) {
      writeFresh(target, data);
      written++;
    }
  }
  for (const rel of listFiles(dst, exclude)) {
    if (!wantSet.has(rel)) {
      rmSync(join(dst, rel), { force: true });
      removed++;
    }
  }
  return { written, removed };
}

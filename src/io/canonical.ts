import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

// A path with its symlinks resolved, as far as it exists (the rest is appended as written). A build
// directory reached through two spellings (a worktree's `.cache` symlink and the tree it points at) must
// be handed to CMake as one: a configure under a new spelling regenerates every compile line and rebuilds
// the whole tree in place.
export function canonicalPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    const parent = dirname(p);
    return parent === p ? p : join(canonicalPath(parent), basename(p));
  }
}

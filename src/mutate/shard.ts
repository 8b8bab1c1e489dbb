import { NhGateError } from '../errors.js';

// One CI job's share of the rows: --shard K/N (1-based K).
export interface Shard {
  k: number;
  n: number;
}

// Parses "K/N"; anything else is a usage error naming the flag.
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k < 1 || k > n) throw new NhGateError('USAGE', `--shard ${text}: not K/N with 1 <= K <= N`, 'pass e.g. --shard 1/2 in one CI job and --shard 2/2 in the other');
  return { k, n };
}

// The rows of shard K of N: every N-th row of the run's fixed order, starting at K-1, so the N shards
// together are the whole run exactly once. Self-test rows are not sharded: each shard proves its suite.
export function shardRows<T>(rows: T[], shard: Shard | undefined, isSelfTest: (r: T) => boolean): T[] {
  if (!shard || shard.n === 1) return rows;
  let i = 0;
  return rows.filter((r) => (isSelfTest(r) ? true : i++ % shard.n === shard.k - 1));
}

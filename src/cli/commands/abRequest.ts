import { InvalidArgumentError } from 'commander';
import { NhGateError } from '../../errors.js';
import type { AbRequest } from '../../gates/ab/plan.js';
import type { Inputs } from '../../gates/setup.js';
import { parseFlagSpec } from '../../plan/flagArms.js';

// `nh-gate ab`'s options, normalised into one A/B request: which stop rule (fixed, sequential, A/A), which
// binaries (one, or --base/--head), and the design choices the command line made (each a deviation where it
// departs from the gate). Every form goes on to the same plan, series and judge.

export interface AbCliOptions {
  flag?: string;
  gate?: string;
  recipe?: string;
  golden?: string;
  repeats?: number;
  order?: 'abba' | 'random';
  seed?: number;
  warmup?: number;
  arch?: string;
  mode?: 'decode' | 'fresh-prefill';
  jobs: number;
  checkpoint?: string;
  timeout?: string;
  resultsDir: string;
  resume?: string;
  json?: boolean;
  dryRun?: boolean;
  sequential?: boolean;
  aa?: boolean;
  budget?: number;
  base?: string;
  head?: string;
}

// commander's argParser for a whole number ≥ min, so a bad value is its usage error (exit 2, no stack).
export function intAtLeast(min: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${v} is not a whole number ≥ ${min}`);
    return n;
  };
}

// commander's argParser for any whole number (a seed).
export function wholeNumber(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`${v} is not a whole number`);
  return n;
}

// Whether this is a cross-commit A/B, checked before the inputs load (it needs no flag).
export function crossCommitRequested(o: AbCliOptions): boolean {
  const cross = o.base !== undefined || o.head !== undefined;
  if (!cross) return false;
  if (o.base === undefined || o.head === undefined) throw new NhGateError('USAGE', `--${o.base === undefined ? 'base' : 'head'} is missing: a cross-commit A/B needs both --base REV and --head REV`, 'pass both, e.g. --base main --head HEAD');
  if (o.base === o.head) throw new NhGateError('USAGE', `--base and --head are both '${o.base}'`, 'a cross-commit A/B compares two commits; for one binary under a flag use --flag');
  if (o.aa || o.flag) throw new NhGateError('USAGE', `--base/--head cannot be combined with ${o.aa ? '--aa' : '--flag'}`, o.aa ? 'an A/A runs one arm on both sides: run it on one commit, without --base/--head' : 'a cross-commit A/B compares two builds, not a flag: drop --flag');
  return true;
}

// The stop rule the options (and the gate's "always") ask for; a fixed-N option with a sequential one is a usage error.
export function stopOf(o: AbCliOptions, inputs: Inputs): AbRequest['stop'] {
  const stop = o.aa ? 'aa' : o.sequential || inputs.gate?.gate.sequential?.always ? 'sequential' : 'fixed';
  if (o.budget !== undefined && stop === 'fixed') throw new NhGateError('USAGE', '--budget is the leg budget of a sequential A/B', 'add --sequential, or use --repeats for a fixed number of legs');
  if (o.repeats !== undefined && stop !== 'fixed') throw new NhGateError('USAGE', '--repeats fixes the number of legs; a sequential A/B stops by itself', 'drop --repeats (use --budget to cap the legs)');
  return stop;
}

// The arms --flag NAME=A,B gives (undefined: the gate's, else off/on).
export function cliArms(o: AbCliOptions): { A: string; B: string } | undefined {
  return o.flag === undefined ? undefined : (parseFlagSpec(o.flag).arms ?? undefined);
}

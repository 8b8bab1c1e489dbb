import fc from 'fast-check';

// A fixed seed, so CI is deterministic; set NHG_FC_SEED to explore others (a found counterexample becomes a unit test).
fc.configureGlobal({ seed: Number(process.env.NHG_FC_SEED ?? 20261202) });
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStat, type ProcStat } from '../../src/exec/procfs.js';

// /proc/<pid>/stat read from its bytes (src/exec/procfs.ts, issue 25) against the string reading it replaced:
// the line as latin1 text, split on spaces after the last ')', each field through Number().
const RUNS = Number(process.env.NHG_PROPERTY_RUNS ?? 0) || undefined;
const runs = (n: number): number => RUNS ?? n;

function byStrings(pid: number, line: string): ProcStat {
  const close = line.lastIndexOf(')');
  const rest = line.slice(close + 2).split(' ');
  return { pid, state: rest[0] ?? '?', ppid: Number(rest[1]), pgrp: Number(rest[2]), session: Number(rest[3]), cpuTicks: Number(rest[11]) + Number(rest[12]), startTicks: Number(rest[19]) };
}
const bytes = (line: string): Buffer => Buffer.from(line, 'latin1');
const same = (line: string): void => {
  const b = bytes(line);
  // a buffer longer than the line (the reader's is 4096 bytes): only its first n bytes count
  const padded = Buffer.concat([b, Buffer.from(' 9 9 9)')]);
  expect(parseStat(7, padded, b.length), JSON.stringify(line)).toStrictEqual(byStrings(7, line));
};

describe('a /proc stat line read from its bytes', () => {
  it('reads every process on this host as the string reading does', () => {
    let read = 0;
    for (const name of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      let line: string;
      try {
        line = readFileSync(`/proc/${name}/stat`, 'latin1');
      } catch {
        continue; // gone
      }
      same(line);
      read += 1;
    }
    expect(read).toBeGreaterThan(0);
  });

  it('any command name (spaces, parentheses), negative fields, and lines cut short or odd', () => {
    const num = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.nat(), fc.constantFrom(2 ** 40, -1));
    const field = fc.oneof({ weight: 8, arbitrary: num.map(String) }, fc.constantFrom('', '-', '--1', '+3', '0x1f', '1e3', '7\n', '\t4', '-0', '00012', 'R', '1-2'));
    const line = fc.tuple(fc.nat({ max: 99999 }), fc.string({ unit: 'binary-ascii', maxLength: 20 }), fc.constantFrom('R', 'S', 'Z', 'X', ''), fc.array(field, { maxLength: 50 }), fc.constantFrom('\n', '', ' '))
      .map(([pid, comm, state, fields, end]) => `${pid} (${comm}) ${[state, ...fields].join(' ')}${end}`);
    fc.assert(fc.property(line, same), { numRuns: runs(3000) });
    for (const l of ['', ')', 'x)', '1 (a) ', '1 (a)', '1 (a b) S', '1 (x)) S 1 2 3', '12 (nh) S -1 -2 -3 0 -1 4194304 1 2 3 4 5 6 7 8 20 0 1 0 9999 1 2']) same(l);
  });

  it('takes the fields by their place: ppid, pgrp, session, utime + stime, starttime', () => {
    const line = '42 (a b) c) S 10 20 30 0 -1 4194560 1 2 3 4 500 60 7 8 20 0 1 0 123456 9 9\n';
    const b = bytes(line);
    expect(parseStat(42, b, b.length)).toStrictEqual({ pid: 42, state: 'S', ppid: 10, pgrp: 20, session: 30, cpuTicks: 560, startTicks: 123456 });
  });
});

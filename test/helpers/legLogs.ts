import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { readDriverLog, detectProfile } from '../../src/gates/leg/logRead.js';
import { analyze } from '../../src/analyze/analyze.js';
import { rejudgeLegLog } from '../../src/analyze/rejudge.js';
import { loadGolden } from '../../src/config/load.js';
import { resolveProfile } from '../../src/config/profiles.js';
import { BUILTIN_PROFILES } from '../../src/profiles/builtin.js';
import { legClass } from '../../src/gates/verdict.js';

function resultFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) resultFiles(p, out);
    else if (e === 'result.json') out.push(p);
  }
  return out;
}

// Every leg log under these results dirs, read back by analyze's path, gives its leg's verdict, exit
// class and per-token figure exactly (one judge, one window rule). Returns how many legs were checked.
export async function expectLegLogsAgree(dirs: readonly string[]): Promise<number> {
  let checked = 0;
  for (const file of dirs.flatMap((d) => resultFiles(d))) {
    const result = JSON.parse(readFileSync(file, 'utf8'));
    for (const leg of result.legs as Array<Record<string, any>>) {
      const logPath = join(result.runDir, leg.logFile);
      const detected = detectProfile(logPath, BUILTIN_PROFILES);
      expect(detected, `${logPath}: the header names its profile`).not.toBeNull();
      const read = await readDriverLog(logPath, resolveProfile(detected!.ref, result.runDir));
      expect(read.header, `${logPath}: header`).not.toBeNull();
      expect(read.trailer, `${logPath}: trailer`).not.toBeNull();
      const again = rejudgeLegLog(logPath, read.report, read.header!, read.trailer!, loadGolden(read.header!.golden!).golden);
      const where = `${logPath} (leg ${leg.index + 1}, ${leg.label})`;
      expect(again.verdict, where).toBe(leg.verdict);
      expect(legClass(again), where).toBe(legClass(leg as never));
      expect(again.voidReasons, where).toEqual(leg.voidReasons);
      const a = analyze({ report: read.report, timed: read.timed, window: null, samples: null, arch: null, baselines: [], leg: again });
      const mine = JSON.parse(JSON.stringify(a.perOutputToken));
      const theirs = leg.quantities.perOutputToken;
      expect({ status: mine.status, value: mine.value, reason: mine.reason }, where).toEqual({ status: theirs.status, value: theirs.value, reason: theirs.reason });
      checked += 1;
    }
  }
  return checked;
}

// A maker of isolated results dirs (each with its own GPU lock) for one test file; when the file ends,
// every leg log written under them must re-judge to its leg's verdict, and at least one leg must exist.
export function isolatedResults(): () => string {
  const dirs: string[] = [];
  afterAll(async () => {
    expect(await expectLegLogsAgree(dirs)).toBeGreaterThan(0);
  }, 120_000);
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'nh-results-'));
    dirs.push(dir);
    process.env.NH_GATE_LOCK = join(dir, 'gpu.lock');
    return dir;
  };
}

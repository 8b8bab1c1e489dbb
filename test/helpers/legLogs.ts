import { witnessedWord } from '../../src/verdict/witness.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { readDriverLog, detectProfile } from '../../src/gates/leg/logRead.js';
import { rejudgeLegLog } from '../../src/analyze/rejudge.js';
import { runAnalyze } from '../../src/analyze/command.js';
import { exitCodeFor } from '../../src/cli/exit.js';
import { loadGolden } from '../../src/config/load.js';
import { resolveProfile } from '../../src/config/profiles.js';
import { BUILTIN_PROFILES } from '../../src/profiles/builtin.js';
import { legClass } from '../../src/gates/verdict.js';
import type { LegRecord } from '../../src/results/types.js';
import { legFileBase } from '../../src/results/legLog.js';

function resultFiles(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) resultFiles(p, out);
    else if (e === 'result.json') out.push(p);
  }
  return out;
}

// `nh-gate analyze --log` of one leg log, as a user runs it (profile from the header, golden from the header),
// in text and in --json.
async function analyzeLog(log: string): Promise<{ text: string; doc: Record<string, any> }> {
  let text = '';
  let json = '';
  await runAnalyze({ log }, exitCodeFor, undefined, (s) => { text += s; });
  await runAnalyze({ log, json: true }, exitCodeFor, undefined, (s) => { json += s; });
  return { text, doc: JSON.parse(json) };
}

// What analyze prints for a leg log says one thing, the leg's: one token verdict (the leg's), the leg's exit
// code, no engine-counter verdict beside it, no row of nulls, and a `!` line only where the leg itself saw the
// engine disagree.
export function expectAnalyzeSaysOneThing(text: string, doc: Record<string, any>, leg: LegRecord, where: string): void {
  const code = exitCodeFor(legClass(leg));
  const verdicts = text.split('\n').filter((l) => l.startsWith('token gate'));
  // A pass the harness did not see prints as the engine's claim, as the live leg printed it (one witness rule).
  const word = witnessedWord(leg.verdict, leg.witness);
  expect(verdicts, `${where}\n${text}`).toEqual([`token gate: ${word} — re-judged by the harness against the leg's golden, as the leg was`]);
  expect(text, where).toContain(`→ ${word}\n`);
  expect(text, where).not.toMatch(/^\s*judged:|block -1|=null|NOT MEASURED — no TOKEN MATCH/m);
  if (leg.crossCheck?.agree !== false) expect(text, where).not.toMatch(/^\s*! /m);
  expect(text.trimEnd().split('\n').at(-1), where).toBe(`exit ${code} (${legClass(leg)})`);
  expect({ word: doc.tokens.word, by: doc.tokens.by, exitCode: doc.exitCode, leg: doc.leg.verdict }, where).toEqual({ word: leg.verdict, by: 'harness', exitCode: code, leg: leg.verdict });
}

// Every leg log under these results dirs, read back by analyze's path, gives its leg's verdict, exit
// class and per-token figure exactly (one judge, one window rule), and analyze's report of it says nothing
// else. Returns how many legs were checked.
export async function expectLegLogsAgree(dirs: readonly string[]): Promise<number> {
  let checked = 0;
  for (const file of dirs.flatMap((d) => resultFiles(d))) {
    const result = JSON.parse(readFileSync(file, 'utf8'));
    for (const leg of result.legs as Array<Record<string, any>>) {
      // one naming rule for every leg's files (results/legLog.ts legFileBase)
      expect(leg.logFile).toBe(join('legs', `${legFileBase(leg as LegRecord)}.log`));
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
      // The same reasons by code; a re-read log has no process tail, so LOAD_FAILED may not quote the last line.
      expect(again.voidReasons.map((x) => x.code), where).toEqual((leg.voidReasons as { code: string }[]).map((x) => x.code));
      again.voidReasons.forEach((x, i) => expect((leg.voidReasons as { message: string }[])[i]!.message.startsWith(x.message), where).toBe(true));
      const { text, doc } = await analyzeLog(logPath);
      expectAnalyzeSaysOneThing(text, doc, leg as LegRecord, where);
      const mine = doc.quantities.perOutputToken;
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

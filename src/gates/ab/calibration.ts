import type { LedgerRead } from '../../results/ledgerRead.js';
import { FALSE_ALARM_FIGURE } from './judge/aa.js';

// A gate with sequential.requireCalibrationDays runs only where the ledger holds a passing A/A calibration
// (ab --aa) of this gate on this silicon key, younger than N days: the registered noise scale has been seen
// to hold here. A calibration taken on other silicon never counts.

export type CalibrationCheck = { ok: true; at: string; rate: number; line: number } | { ok: false; message: string };

// The newest passing A/A calibration of this gate on this silicon, if younger than maxAgeDays.
export function findCalibration(ledger: LedgerRead, gate: string, siliconKey: string, now: Date, maxAgeDays: number): CalibrationCheck {
  const mine = ledger.entries.filter((e) => e.gate === gate && e.siliconKey === siliconKey && e.figures[FALSE_ALARM_FIGURE] !== undefined);
  const passing = mine.filter((e) => e.verdict === 'MEASURED');
  const newest = passing.at(-1);
  const ageDays = (at: string): number => (now.getTime() - Date.parse(at)) / 86_400_000;
  if (newest && ageDays(newest.at) <= maxAgeDays) return { ok: true, at: newest.at, rate: newest.figures[FALSE_ALARM_FIGURE]!.value, line: newest.line };
  const why = newest
    ? `the newest passing one (${newest.at}, line ${newest.line}) is ${ageDays(newest.at).toFixed(1)} days old`
    : mine.length ? `${mine.length} calibration(s) found there, none passing` : 'none was found there';
  return { ok: false, message: `gate '${gate}' requires an A/A calibration on silicon ${siliconKey} younger than ${maxAgeDays} days in ${ledger.path}; ${why}` };
}

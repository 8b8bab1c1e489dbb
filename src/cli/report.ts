import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { GateDeps } from '../gates/deps.js';
import type { RunResult } from '../results/types.js';
import type { TextReport } from '../report/live.js';
import type { ExportTarget } from '../report/exportWrite.js';
import type { ExportFormat } from '../report/exports.js';
import { writeOut } from './pipe.js';

// How a run command reports: --json (one document at the end), or text line by line as legs end
// (--verbose: each leg's full block), plus --export-* files rewritten after every leg.
export interface OutputCliOptions {
  json?: boolean;
  verbose?: boolean;
  exportCsv?: string;
  exportMarkdown?: string;
  exportJson?: string;
  exportJsonl?: string;
}

const EXPORTS: ReadonlyArray<{ format: ExportFormat; option: keyof OutputCliOptions; flag: string; what: string }> = [
  { format: 'csv', option: 'exportCsv', flag: '--export-csv', what: 'CSV: one row per leg and per arm, units in the column names' },
  { format: 'markdown', option: 'exportMarkdown', flag: '--export-markdown', what: 'markdown: the leg and arm tables, units in the headers' },
  { format: 'json', option: 'exportJson', flag: '--export-json', what: 'JSON: the columns with their units, the leg rows and the arm rows' },
  { format: 'jsonl', option: 'exportJsonl', flag: '--export-jsonl', what: 'JSON Lines: one object per leg and per arm, each naming its run' },
];

// An export path is checked before anything runs: its folder must exist and the path must not be a folder.
export function exportPath(value: string): string {
  const path = resolve(value);
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InvalidArgumentError(`folder ${dir} does not exist; create it first or export elsewhere`);
  if (existsSync(path) && statSync(path).isDirectory()) throw new InvalidArgumentError(`${path} is a folder; name a file`);
  return path;
}

// Adds --verbose and the --export-* options to a command that runs legs.
export function outputOptions(cmd: Command): Command {
  cmd.option('--verbose', "print each leg's full block (every figure with its terms) instead of its one line");
  for (const e of EXPORTS) cmd.addOption(new Option(`${e.flag} <file>`, `write the result as ${e.what}; rewritten after every leg`).argParser(exportPath));
  return cmd;
}

export interface RunOutput {
  // The gate's effects with the listener attached.
  attach(deps: GateDeps): GateDeps;
  // Prints what is left once the run has ended: the JSON document, or the text after the last leg.
  finish(r: RunResult): void;
}

// The listeners these options ask for: text on stdout (unless --json) and each export file. The report
// modules (and cli-table3) load here, when a run asks for them, not at every start (nh-gate --version).
export async function runOutput(o: OutputCliOptions): Promise<RunOutput> {
  const [{ resultJson }, { allOf, textReport }, { exportListener }] = await Promise.all([
    import('../report/save.js'), import('../report/live.js'), import('../report/exportWrite.js'),
  ]);
  const targets: ExportTarget[] = EXPORTS.flatMap((e) => {
    const path = o[e.option];
    return typeof path === 'string' ? [{ format: e.format, path }] : [];
  });
  const text: TextReport | null = o.json ? null : textReport((s) => writeOut(s), { verbose: Boolean(o.verbose) });
  const listener = allOf([text, exportListener(targets, (line) => process.stderr.write(`${line}\n`))]);
  return {
    attach: (deps) => ({ ...deps, live: listener }),
    finish(r) {
      // A run that never reached a save (an early refusal) still writes its exports and prints its text.
      listener.saved(r);
      if (text) text.end(r);
      else writeOut(resultJson(r));
    },
  };
}

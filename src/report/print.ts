import { runLines } from './text.js';
import { resultJson } from './save.js';
import type { RunResult } from '../results/types.js';

// Prints a finished run: one JSON document with --json, else the human lines (both on stdout).
export function printOutcome(r: RunResult, json: boolean): void {
  process.stdout.write(json ? resultJson(r) : runLines(r).join('\n') + '\n');
}

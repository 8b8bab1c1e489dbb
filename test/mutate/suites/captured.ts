import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SuiteFormat } from '../../../src/config/recipe.js';
import type { SuiteOutput } from '../../../src/mutate/suite/read.js';

// The captured runs of project/ (captures.json, written by capture.mjs --accept) as a reader gets them.
const HERE = dirname(fileURLToPath(import.meta.url));
export const CAPTURED = join(HERE, 'captured');
export interface Capture { id: string; format: SuiteFormat; report?: boolean }
export const CAPTURES: Capture[] = (JSON.parse(readFileSync(join(HERE, 'captures.json'), 'utf8')) as { captures: Capture[] }).captures;

// One capture's console lines and, when it wrote one, its report; dir: another capture folder.
export function captured(id: string, dir = CAPTURED): SuiteOutput {
  const c = CAPTURES.find((x) => x.id === id);
  if (!c) throw new Error(`no capture ${id}`);
  const lines = readFileSync(join(dir, `${id}.out`), 'utf8').split('\n');
  const rep = join(dir, `${id}.report`);
  return { lines, ...(c.report ? { report: { text: existsSync(rep) ? readFileSync(rep, 'utf8') : null } } : {}) };
}

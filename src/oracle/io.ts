import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { NhGateError } from '../errors.js';

// --prompts FILE: a JSON array of strings, or one prompt per non-empty line of text.
export async function readPromptsFile(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new NhGateError('UNREADABLE_FILE', `prompts file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'pass --prompts with a JSON array of strings or a text file, one prompt per line');
  }
  return parsePrompts(text, path);
}

// Pure half of readPromptsFile, so the format is testable without files.
export function parsePrompts(text: string, path: string): string[] {
  let prompts: string[];
  if (text.trimStart().startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new NhGateError('BAD_INPUT', `prompts file ${path} starts with '[' but is not JSON (${err instanceof Error ? err.message : String(err)})`, 'write a JSON array of strings');
    }
    if (!Array.isArray(json) || !json.every((p) => typeof p === 'string')) {
      throw new NhGateError('BAD_INPUT', `prompts file ${path} is a JSON value but not an array of strings`, 'write a JSON array of strings, e.g. ["The quick brown fox"]');
    }
    prompts = json;
  } else {
    prompts = text.split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.length > 0);
  }
  const empty = prompts.findIndex((p) => p.length === 0);
  if (empty >= 0) throw new NhGateError('BAD_INPUT', `prompts file ${path}: prompt ${empty} is empty; the model needs at least one byte`, 'remove the empty prompt');
  if (prompts.length === 0) throw new NhGateError('BAD_INPUT', `prompts file ${path} holds no prompts`, 'add at least one prompt');
  return prompts;
}

// Parses a positive integer option; anything else is a usage error naming the option.
export function positiveInt(option: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new NhGateError('USAGE', `${option} ${JSON.stringify(raw)} is not a positive integer`, `pass ${option} with a whole number >= 1`);
  }
  return n;
}

// Parses a non-negative finite number option (a margin in nats).
export function nonNegativeNumber(option: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new NhGateError('USAGE', `${option} ${JSON.stringify(raw)} is not a non-negative number`, `pass ${option} with a value such as 0.001`);
  }
  return n;
}

// True when a file is there; kept here so the command runner stays free of fs calls.
export function fileExists(path: string): boolean {
  return existsSync(path);
}

import type { TimedLine } from '../exec/types.js';

// Engine output that is not text the profile can trust: counted by kind, and never read for a number.
export interface OutputHazards {
  // Lines cut at the line cap (their head is kept in the log, the reader never sees them).
  truncatedLines: number;
  truncatedChars: number;
  // Lines that held bytes that are not UTF-8 (decoded as U+FFFD) or NUL bytes: skipped by the reader.
  invalidUtf8Lines: number;
  nulLines: number;
  // Lines whose `\r` overwrites were collapsed to what a terminal shows (these are read).
  crLines: number;
}

export function emptyHazards(): OutputHazards {
  return { truncatedLines: 0, truncatedChars: 0, invalidUtf8Lines: 0, nulLines: 0, crLines: 0 };
}

// Counts a line's hazards into h; returns whether the reader may read it. A cut line could match a
// prefix of a token row, and a NUL or a replaced byte could sit inside a number: skipped, by name.
export function screenLine(l: TimedLine, h: OutputHazards): boolean {
  let readable = true;
  if (l.crOverwrites) h.crLines += 1;
  if (l.truncatedChars) {
    h.truncatedLines += 1;
    h.truncatedChars += l.truncatedChars;
    readable = false;
  }
  if (l.text.includes('\uFFFD')) {
    h.invalidUtf8Lines += 1;
    readable = false;
  }
  if (l.text.includes('\0')) {
    h.nulLines += 1;
    readable = false;
  }
  return readable;
}

// The hazards as one sentence for the leg's notes, or null when the output was plain text.
export function describeHazards(h: OutputHazards, maxLineChars: number): string | null {
  const parts: string[] = [];
  if (h.truncatedLines) parts.push(`${h.truncatedLines} line(s) longer than ${maxLineChars} characters cut (${h.truncatedChars} characters dropped, not read)`);
  if (h.invalidUtf8Lines) parts.push(`${h.invalidUtf8Lines} line(s) with invalid UTF-8 skipped`);
  if (h.nulLines) parts.push(`${h.nulLines} line(s) with NUL bytes skipped`);
  if (h.crLines) parts.push(`${h.crLines} line(s) with \\r progress overwrites read as the terminal shows them`);
  return parts.length ? `HOSTILE_OUTPUT: ${parts.join('; ')}` : null;
}

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
  return screenText(l.text, l.truncatedChars ?? 0, l.crOverwrites ?? 0, h, true);
}

// screenLine on a line's parts; scanText false when the caller found no U+FFFD and no NUL in the whole
// chunk that held the line (one scan per chunk instead of two per line).
export function screenText(text: string, truncatedChars: number, crOverwrites: number, h: OutputHazards, scanText: boolean): boolean {
  let readable = true;
  if (crOverwrites) h.crLines += 1;
  if (truncatedChars) {
    h.truncatedLines += 1;
    h.truncatedChars += truncatedChars;
    readable = false;
  }
  if (!scanText) return readable;
  if (text.includes('\uFFFD')) {
    h.invalidUtf8Lines += 1;
    readable = false;
  }
  if (text.includes('\0')) {
    h.nulLines += 1;
    readable = false;
  }
  return readable;
}

// Whether a decoded chunk holds a byte screenText must see (U+FFFD for invalid UTF-8, or NUL).
export function chunkNeedsScan(chunk: string): boolean {
  return chunk.includes('\uFFFD') || chunk.includes('\0');
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

import type { TimedLine } from './types.js';

// Splits a byte stream into lines stamped at the arrival of the chunk that completed them.
// Pure: the caller supplies the arrival time, so it is testable without a clock.
export class LineSplitter {
  private partial = '';
  constructor(private readonly stream: 'stdout' | 'stderr') {}

  push(chunk: string, tNs: bigint): TimedLine[] {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    return parts.map((p) => ({ tNs, stream: this.stream, text: stripCr(p) }));
  }

  // A final line without a newline still counts once the stream ends.
  flush(tNs: bigint): TimedLine[] {
    if (this.partial === '') return [];
    const line = { tNs, stream: this.stream, text: stripCr(this.partial) };
    this.partial = '';
    return [line];
  }
}

function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

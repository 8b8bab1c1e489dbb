// The samples JSONL, written as samples arrive (a crash mid-window keeps what was seen) and finished
// atomically: the final header (drift, partial, cost) replaces the provisional one via temp + rename.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SampleLine } from '../config/samples.js';

export class SamplesWriter {
  private fd: number | null;
  private utilCount = 0;
  // The first write error (a full disk mid-window): the file stops there, and the sampler's result says so.
  failure: string | null = null;

  // Opens (truncating) the file and writes the provisional header as its first line.
  constructor(readonly path: string, header: SampleLine) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
    writeSync(this.fd, JSON.stringify(header) + '\n');
  }

  // Appends lines now, so samples survive a crash of the harness.
  append(lines: readonly SampleLine[]): void {
    if (this.fd === null || lines.length === 0) return;
    let text = '';
    for (const l of lines) {
      if (l.kind === 'util') this.utilCount += 1;
      text += JSON.stringify(l) + '\n';
    }
    try {
      writeSync(this.fd, text);
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    this.failure ??= `samples file ${this.path} stopped: ${(err as Error).message}`;
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        /* already failing */
      }
      this.fd = null;
    }
  }

  get count(): number {
    return this.utilCount;
  }

  // Closes the stream and swaps in the final header atomically (temp + rename).
  finish(header: SampleLine): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
    const tmp = `${this.path}.tmp-${process.pid}`;
    try {
      const body = readFileSync(this.path, 'utf8');
      const firstNl = body.indexOf('\n');
      const rest = firstNl >= 0 ? body.slice(firstNl + 1) : '';
      writeFileSync(tmp, JSON.stringify(header) + '\n' + rest);
      renameSync(tmp, this.path);
    } catch (err) {
      // The provisional header stays: the file is still readable, only its final facts are missing.
      rmSync(tmp, { force: true });
      this.failure ??= `samples file ${this.path}: final header not written: ${(err as Error).message}`;
    }
  }
}

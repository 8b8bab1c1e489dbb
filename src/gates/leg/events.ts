import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { EngineEventSchema, type EngineEvent } from '../../config/events.js';
import { parseJsonlLine, type GarbageLine } from '../../io/jsonl.js';
import { fastEngineEvent } from './eventsFast.js';

// The engine's --events stream, read after the leg (the boundary: each line validated with zod).
export interface ModeEvents {
  tokens: Map<number, number[]>;
  // Engine CLOCK_MONOTONIC ns of every token, in order, for the engine-side window and per-token spreads.
  tokenNs: bigint[];
  // Per prompt, the token times in file order (for inter-token intervals within a prompt).
  tokenNsByPrompt: Map<number, bigint[]>;
  promptTokenCounts: Map<number, number>;
  // Engine CLOCK_MONOTONIC ns of each prompt_start event (for time to first token).
  promptStartNs: Map<number, bigint>;
  // prompt_done's own count of the tokens it generated, per prompt (checked against the token events).
  promptDone?: Map<number, number>;
}

export interface EngineEvents {
  loadEndNs: bigint | null;
  loadS: number | null;
  modes: Map<string, ModeEvents>;
  counters: Array<{ step: number; fields: Record<string, number> }>;
  doneExit: number | null;
  garbage: number;
  missing: boolean;
  // The first lines that were not events (line number and why), for the leg's reason.
  garbageLines?: GarbageLine[];
  // The file ends inside a line (no newline after a last line that is not an event): the writer was cut off.
  cutLastLine?: boolean;
}

// How many unreadable lines a reason names; the rest are counted.
const NAMED_GARBAGE = 3;

function modeOf(m: Map<string, ModeEvents>, mode: string): ModeEvents {
  let e = m.get(mode);
  if (!e) {
    e = { tokens: new Map(), tokenNs: [], tokenNsByPrompt: new Map(), promptTokenCounts: new Map(), promptStartNs: new Map(), promptDone: new Map() };
    m.set(mode, e);
  }
  return e;
}

// Reads an events file; a missing file is data (missing: true), a bad line is counted and named, never fatal.
export function readEngineEvents(path: string): EngineEvents {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return missingEvents();
  }
  return parseEngineEvents(text);
}

function missingEvents(): EngineEvents {
  return { ...parseEngineEvents(''), missing: true };
}

// The events of one file's text (pure): every line but the last through the fold, then the last (the text
// after the final newline, often empty) as the end.
export function parseEngineEvents(text: string): EngineEvents {
  const fold = new EventsFold();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) fold.line(lines[i]!);
  return fold.end(lines[lines.length - 1]!);
}

// The events of a file's lines, one line at a time, in file order. A line the hand check takes (eventsFast.ts)
// skips zod; any other goes to the schema line reader, blank lines included, so what a bad line is called never
// changes.
export class EventsFold {
  private readonly out: EngineEvents = { loadEndNs: null, loadS: null, modes: new Map(), counters: [], doneExit: null, garbage: 0, missing: false };
  private readonly garbage: GarbageLine[] = [];
  private lineNo = 0;

  line(line: string): void {
    this.lineNo += 1;
    let fast: EngineEvent | undefined;
    try {
      fast = fastEngineEvent(JSON.parse(line));
    } catch {
      fast = undefined;
    }
    if (fast) return this.add(fast);
    const r = parseJsonlLine(line, EngineEventSchema);
    if (r === null) return;
    if (r.ok) this.add(r.value);
    else this.garbage.push({ lineNo: this.lineNo, reason: r.reason });
  }

  // The text after the last newline (a line the writer had not ended, or ''), then the events.
  end(tail: string): EngineEvents {
    this.line(tail);
    const out = this.out;
    out.garbage = this.garbage.length;
    out.garbageLines = this.garbage.slice(0, NAMED_GARBAGE);
    // A last line with no newline after it that is not an event: the writer stopped mid-line.
    out.cutLastLine = this.garbage.length > 0 && tail.trim() !== '' && parseJsonlLine(tail, EngineEventSchema)?.ok === false;
    return out;
  }

  private add(e: EngineEvent): void {
    const out = this.out;
    switch (e.event) {
      case 'load_end':
        out.loadEndNs = BigInt(e.tNs);
        out.loadS = e.loadS;
        break;
      case 'prompt_start':
        modeOf(out.modes, e.mode).promptTokenCounts.set(e.prompt, e.promptTokens);
        modeOf(out.modes, e.mode).promptStartNs.set(e.prompt, BigInt(e.tNs));
        break;
      case 'token': {
        const m = modeOf(out.modes, e.mode);
        const list = m.tokens.get(e.prompt) ?? [];
        list[e.index] = e.token;
        m.tokens.set(e.prompt, list);
        const t = BigInt(e.tNs);
        m.tokenNs.push(t);
        const tl = m.tokenNsByPrompt.get(e.prompt) ?? [];
        tl.push(t);
        m.tokenNsByPrompt.set(e.prompt, tl);
        break;
      }
      case 'prompt_done':
        modeOf(out.modes, e.mode).promptDone!.set(e.prompt, e.generated);
        break;
      case 'counters':
        out.counters.push({ step: e.step, fields: e.fields });
        break;
      case 'done':
        out.doneExit = e.exitCode;
        break;
      default:
        break;
    }
  }
}

// An events file read while the driver writes it: what was appended is folded a line at a time, so when the
// driver exits only its last lines are left to read (issue 25: judging off the leg's critical path). The end is
// exactly readEngineEvents of the file as it then is: the bytes folded are checked against the file, and a
// file rewritten, cut or removed under the reader is read again whole.
export class EventsTail {
  private fold = new EventsFold();
  // Every byte folded or held, in the order read (compared with the file at the end).
  private readonly seen: Buffer[] = [];
  private pos = 0;
  // The pieces of a line not yet ended by a newline (joined once, when it ends: a long line read in many
  // pieces is not copied again per piece).
  private partial: Buffer[] = [];
  private lastPollMs = -Infinity;

  constructor(private readonly path: string, private readonly everyMs = 10) {}

  // How many bytes of the file are folded or held so far (what is left to read when the driver exits).
  get readBytes(): number {
    return this.pos;
  }

  // How the end was read: the polls' fold and the lines after it, the file read again whole (it was rewritten
  // or cut under the reader), or no file; null before the end.
  get endedBy(): 'appended' | 'read again' | 'missing' | null {
    return this.ended;
  }
  private ended: 'appended' | 'read again' | 'missing' | null = null;

  // Folds what the driver appended since the last poll; at most once per everyMs unless forced.
  poll(force = false): void {
    const now = performance.now();
    if (!force && now - this.lastPollMs < this.everyMs) return;
    this.lastPollMs = now;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return; // not written yet, or gone: the end reads the file again
    }
    try {
      for (let n = readSync(fd, readBuf, 0, readBuf.length, this.pos); n > 0; n = readSync(fd, readBuf, 0, readBuf.length, this.pos)) {
        this.take(Buffer.from(readBuf.subarray(0, n)));
      }
    } catch {
      /* read failed mid-way: the end reads the file again */
    } finally {
      closeSync(fd);
    }
  }

  finish(): EngineEvents {
    this.poll(true);
    let file: Buffer;
    try {
      file = readFileSync(this.path);
    } catch {
      this.ended = 'missing';
      return missingEvents();
    }
    if (!this.isPrefixOf(file)) {
      this.ended = 'read again';
      return parseEngineEvents(file.toString('utf8'));
    }
    this.ended = 'appended';
    if (file.length > this.pos) this.take(file.subarray(this.pos));
    return this.fold.end(Buffer.concat(this.partial).toString('utf8'));
  }

  private take(bytes: Buffer): void {
    this.seen.push(bytes);
    this.pos += bytes.length;
    // Lines split on the newline byte, each decoded alone: UTF-8 never uses 0x0A inside a character, so this
    // is the decoding of the whole file, split.
    let from = 0;
    for (let nl = bytes.indexOf(0x0a); nl >= 0; nl = bytes.indexOf(0x0a, from)) {
      const end = bytes.subarray(from, nl);
      const line = this.partial.length ? Buffer.concat([...this.partial, end]) : end;
      this.partial = [];
      this.fold.line(line.toString('utf8'));
      from = nl + 1;
    }
    if (from < bytes.length) this.partial.push(bytes.subarray(from));
  }

  private isPrefixOf(file: Buffer): boolean {
    if (file.length < this.pos) return false;
    let at = 0;
    for (const b of this.seen) {
      if (!file.subarray(at, at + b.length).equals(b)) return false;
      at += b.length;
    }
    return true;
  }
}

// One read buffer for every tail (reads are synchronous); what is kept is copied out of it.
const readBuf = Buffer.allocUnsafe(64 * 1024);

// Inter-token intervals within each prompt (the first token of a prompt carries its prefill, so it is skipped).
export function interTokenS(m: ModeEvents): number[] {
  const out: number[] = [];
  for (const ts of m.tokenNsByPrompt.values()) for (let i = 1; i < ts.length; i++) out.push(Number(ts[i]! - ts[i - 1]!) / 1e9);
  return out;
}

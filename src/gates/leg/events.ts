import { readFileSync } from 'node:fs';
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
    return { ...parseEngineEvents(''), missing: true };
  }
  return parseEngineEvents(text);
}

// Every line of an events file: the records in order, every other line with its number and why. A line the
// hand check takes (eventsFast.ts) skips zod; any other goes to the schema line reader, blank lines included,
// so what a bad line is called never changes.
function parseEventLines(text: string): { records: EngineEvent[]; garbage: GarbageLine[] } {
  const records: EngineEvent[] = [];
  const garbage: GarbageLine[] = [];
  text.split('\n').forEach((line, i) => {
    let fast: EngineEvent | undefined;
    try {
      fast = fastEngineEvent(JSON.parse(line));
    } catch {
      fast = undefined;
    }
    if (fast) {
      records.push(fast);
      return;
    }
    const r = parseJsonlLine(line, EngineEventSchema);
    if (r === null) return;
    if (r.ok) records.push(r.value);
    else garbage.push({ lineNo: i + 1, reason: r.reason });
  });
  return { records, garbage };
}

// The events of one file's text (pure).
export function parseEngineEvents(text: string): EngineEvents {
  const out: EngineEvents = { loadEndNs: null, loadS: null, modes: new Map(), counters: [], doneExit: null, garbage: 0, missing: false };
  const { records, garbage } = parseEventLines(text);
  out.garbage = garbage.length;
  out.garbageLines = garbage.slice(0, NAMED_GARBAGE);
  // A last line with no newline after it that is not an event: the writer stopped mid-line.
  const tail = text.slice(text.lastIndexOf('\n') + 1);
  out.cutLastLine = garbage.length > 0 && tail.trim() !== '' && parseJsonlLine(tail, EngineEventSchema)?.ok === false;
  for (const e of records) {
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
  return out;
}

// Inter-token intervals within each prompt (the first token of a prompt carries its prefill, so it is skipped).
export function interTokenS(m: ModeEvents): number[] {
  const out: number[] = [];
  for (const ts of m.tokenNsByPrompt.values()) for (let i = 1; i < ts.length; i++) out.push(Number(ts[i]! - ts[i - 1]!) / 1e9);
  return out;
}

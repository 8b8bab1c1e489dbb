import { readFileSync } from 'node:fs';
import { EngineEventSchema } from '../../config/events.js';
import { parseJsonl } from '../../io/jsonl.js';

// The engine's --events stream, read after the leg (the boundary: each line validated with zod).
export interface ModeEvents {
  tokens: Map<number, number[]>;
  // Engine CLOCK_MONOTONIC ns of every token, in order, for the engine-side window and per-token spreads.
  tokenNs: bigint[];
  // Per prompt, the token times (for inter-token intervals within a prompt).
  tokenNsByPrompt: Map<number, bigint[]>;
  promptTokenCounts: Map<number, number>;
  // Engine CLOCK_MONOTONIC ns of each prompt_start event (for time to first token).
  promptStartNs: Map<number, bigint>;
}

export interface EngineEvents {
  loadEndNs: bigint | null;
  loadS: number | null;
  modes: Map<string, ModeEvents>;
  counters: Array<{ step: number; fields: Record<string, number> }>;
  doneExit: number | null;
  garbage: number;
  missing: boolean;
}

function modeOf(m: Map<string, ModeEvents>, mode: string): ModeEvents {
  let e = m.get(mode);
  if (!e) {
    e = { tokens: new Map(), tokenNs: [], tokenNsByPrompt: new Map(), promptTokenCounts: new Map(), promptStartNs: new Map() };
    m.set(mode, e);
  }
  return e;
}

// Reads an events file; a missing file is data (missing: true), a bad line is counted, never fatal.
export function readEngineEvents(path: string): EngineEvents {
  const out: EngineEvents = { loadEndNs: null, loadS: null, modes: new Map(), counters: [], doneExit: null, garbage: 0, missing: false };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { ...out, missing: true };
  }
  const { records, garbage } = parseJsonl(text, EngineEventSchema);
  out.garbage = garbage.length;
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

import type { Golden } from '../../config/golden.js';
import type { DriverReport } from '../../profiles/types.js';
import type { TokenJudgement } from '../../results/types.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import type { EngineEvents } from './events.js';
import { judgeFromEvents, judgeFromIds, judgeFromRows } from './tokens.js';

// The witness rule (SPEC §2, issue 21): a token verdict says who saw the ids it rests on. Where the recipe
// declares that ids will come (an events file, or a profile with an `ids` role) and the harness saw none,
// the leg is VOID by name: it never falls back to the engine's counters. Only a recipe that declares no ids
// lets a verdict rest on counters, and that verdict is stored and printed as the engine's claim.

export interface WitnessInput {
  golden: Golden;
  mode: string;
  // The recipe passes an events file (driver.eventsArgv); its name, for the reason.
  eventsFile: string | null;
  events: EngineEvents | null;
  report: DriverReport;
  // The driver ended on its own with one of its verdict codes. Only then is a missing, cut or short events
  // file the file's fault; a killed or crashed driver is void for that already, and says so.
  ranToEnd: boolean;
}

// How many problems of one kind a reason lists by name before it counts the rest.
const NAMED = 3;

function listed(items: string[]): string {
  return items.length <= NAMED ? items.join('; ') : `${items.slice(0, NAMED).join('; ')}; and ${items.length - NAMED} more`;
}

const EVENTS_FIX = 'write one JSON event per line (docs/engines.md, schemas/events.json), a done event last';

// Why the events file of a leg cannot be the harness's witness; empty when it can.
export function eventProblems(file: string, ev: EngineEvents | null, mode: string): Reason[] {
  if (!ev || ev.missing) return [reason('EVENTS_MISSING', `the recipe declares an events file (driver.eventsArgv) and the driver wrote none (${file}) — the harness saw no ids; ${EVENTS_FIX}`)];
  const out: Reason[] = [];
  const bad = (ev.garbageLines ?? []).map((g) => `line ${g.lineNo} (${g.reason})`);
  if (ev.cutLastLine && ev.garbage === 1) out.push(reason('EVENTS_TRUNCATED', `${file} ends inside ${bad.join('')} with no newline: the writer was cut off`));
  else if (ev.garbage > 0) out.push(reason('EVENTS_UNPARSABLE', `${ev.garbage} line(s) of ${file} are not events: ${listed(bad)}${ev.garbage > bad.length ? ` (the first ${bad.length} named)` : ''} — ${EVENTS_FIX}`));
  const m = ev.modes.get(mode);
  if (!m || m.tokenNs.length === 0) {
    // Unreadable lines already say why no token was seen.
    if (out.length > 0) return out;
    const held = [...ev.modes.entries()].filter(([, x]) => x.tokenNs.length > 0).map(([k]) => k);
    const what = ev.modes.size === 0 && ev.loadEndNs === null && ev.doneExit === null ? `${file} holds no event at all` : `${file} holds no token event for mode ${mode}${held.length ? ` (it has token events for: ${held.join(', ')})` : ''}`;
    out.push(reason('EVENTS_EMPTY', `${what} — the harness saw no ids; ${EVENTS_FIX}`));
    return out;
  }
  const short: string[] = [];
  const odd: string[] = [];
  for (const [prompt, list] of m.tokens) {
    let seen = 0;
    for (const t of list) if (t !== undefined) seen += 1;
    const events = m.tokenNsByPrompt.get(prompt)?.length ?? 0;
    const done = m.promptDone?.get(prompt);
    if (seen < list.length) short.push(`prompt ${prompt}: ${list.length - seen} token index(es) below ${list.length} missing`);
    if (events > seen) odd.push(`prompt ${prompt}: ${events - seen} token index(es) written twice`);
    if (done !== undefined && done > events) short.push(`prompt ${prompt}: prompt_done says ${done} tokens, ${events} token event(s) written`);
    else if (done !== undefined && done < events) odd.push(`prompt ${prompt}: prompt_done says ${done} tokens, ${events} token event(s) written`);
  }
  if (ev.doneExit === null) short.push('no done event: the file stops before the driver said it ended');
  if (short.length) out.push(reason('EVENTS_TRUNCATED', `${file} is incomplete: ${listed(short)} — ${EVENTS_FIX}`));
  if (odd.length) out.push(reason('EVENTS_INCONSISTENT', `${file} contradicts itself: ${listed(odd)} — ${EVENTS_FIX}`));
  return out;
}

// Why a profile that declares ids lines leaves the harness without them; empty when every row has its ids.
export function idsProblems(report: DriverReport): Reason[] {
  if (!report.declaresIds) return [];
  if (report.ids.length === 0) return [reason('IDS_MISSING', `the profile '${report.profile}' reads ids lines (role ids) and the driver printed none — the harness saw no ids; print each prompt's generated ids on its own line`)];
  const printed = new Set(report.ids.map((l) => l.prompt));
  const bare = report.prompts.filter((r) => r.block <= 0 && !printed.has(r.prompt)).map((r) => `prompt ${r.prompt} (row at log line ${r.line})`);
  return bare.length ? [reason('IDS_MISSING', `rows without an ids line: ${listed(bare)} — the harness saw no ids for them; print each prompt's generated ids`)] : [];
}

// got:/exp: lines the reader could bind to no row: ids the harness saw and cannot attribute.
function unboundProblems(report: DriverReport): Reason[] {
  if (report.unboundIds.length === 0) return [];
  const named = report.unboundIds.map((u) => `${u.role}: at log line ${u.line}${u.prompt === null ? '' : ` (prompt ${u.prompt})`}`);
  return [reason('BAD_IDS', `${listed(named)} bound to no prompt row — print them with the prompt index ("prompt N got: …") or right after the row`)];
}

// The judgement void by the problems; when the harness read nothing at all, the witness is only the engine.
function voided(j: TokenJudgement, problems: Reason[]): TokenJudgement {
  if (problems.length === 0) return j;
  return { ...j, word: 'VOID', witness: j.compared === 0 ? 'engine' : j.witness, reasons: [...problems, ...j.reasons.filter((r) => r.code !== 'NO_TOKENS')] };
}

// The harness's token judgement of one leg, from what the recipe says the ids will come as.
export function judgeTokens(i: WitnessInput): TokenJudgement {
  const { golden, mode, report } = i;
  if (i.eventsFile !== null) {
    const m = i.events && !i.events.missing ? i.events.modes.get(mode) : undefined;
    const j = judgeFromEvents(golden, mode, m?.tokens ?? new Map(), m?.promptTokenCounts ?? new Map());
    return i.ranToEnd ? voided(j, eventProblems(i.eventsFile, i.events, mode)) : j;
  }
  if (report.declaresIds) {
    const j = judgeFromIds(golden, mode, report.ids, report.prompts);
    return i.ranToEnd ? voided(j, idsProblems(report)) : j;
  }
  const j = judgeFromRows(golden, mode, report.prompts.filter((r) => r.block <= 0));
  return voided(j, unboundProblems(report));
}

// A gate that requires the harness as witness voids a pass the harness did not see (a claimed failure stays
// a failure: voiding it would hide it).
export function witnessRequired(j: TokenJudgement, required: 'harness' | undefined): Reason | null {
  if (required !== 'harness' || j.witness === 'harness') return null;
  if (j.word !== 'STRICT PASS' && j.word !== 'NEAR-TIE PASS') return null;
  return reason('NOT_WITNESSED', `${j.word} is the engine's claim: the harness saw no ids (${j.source}), and the gate requires "witness": "harness" — give the recipe an events file or a profile with ids lines`);
}

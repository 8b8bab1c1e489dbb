import type { Golden } from '../../config/golden.js';
import type { IdsLine, PromptRow } from '../../profiles/types.js';
import type { PromptJudgement, TokenJudgement } from '../../results/types.js';
import { reason, type Reason } from '../../verdict/reasons.js';
import { parseIdList } from '../../profiles/reader.js';

// The harness's own token comparison against the golden (the engine's verdict is only cross-checked).

// One prompt's ids against its golden row: every position compared, the first mismatch as got/exp, a near-tie
// only where the golden licenses it and its margin there is within the licence (serve judges each request so).
export function classify(golden: Golden, gp: Golden['prompts'][number], got: number[] | null, counts: { generated: number; compared: number; matched: number } | null): PromptJudgement {
  const exp = gp.tokens;
  const width = exp.length;
  let generated: number, compared: number, matched: number, first: number | null = null;
  if (got) {
    generated = got.length;
    compared = Math.min(generated, width);
    matched = 0;
    for (let i = 0; i < compared; i++) {
      if (got[i] === exp[i]) matched += 1;
      else if (first === null) first = i;
    }
  } else {
    generated = counts?.generated ?? 0;
    compared = counts?.compared ?? 0;
    matched = counts?.matched ?? 0;
    if (matched < compared) first = -1; // a mismatch whose position the printed row does not give
  }
  let status: PromptJudgement['status'] = 'match';
  let firstMismatch: PromptJudgement['firstMismatch'] = null;
  if (first !== null) {
    const margin = first >= 0 ? (gp.top2MarginNats?.[first] ?? null) : null;
    firstMismatch = { position: first, got: first >= 0 && got ? (got[first] as number) : -1, exp: first >= 0 ? (exp[first] as number) : -1, marginNats: margin };
    const licensed = golden.nearTie.licensed && margin !== null && margin <= golden.nearTie.maxMarginNats;
    status = licensed ? 'near-tie' : 'divergence';
  } else if (generated < width) status = 'short';
  return { prompt: gp.id, goldenWidth: width, generated, compared, matched, status, firstMismatch, got, exp };
}

function word(prompts: PromptJudgement[], reasons: Reason[]): TokenJudgement['word'] {
  if (reasons.length > 0) return 'VOID';
  if (prompts.some((p) => p.status === 'divergence')) return 'DIVERGENCE';
  if (prompts.some((p) => p.status === 'short')) return 'SHORT';
  if (prompts.reduce((s, p) => s + p.compared, 0) === 0) return 'VOID';
  if (prompts.some((p) => p.status === 'near-tie')) return 'NEAR-TIE PASS';
  return 'STRICT PASS';
}

function totals(source: TokenJudgement['source'], mode: string, prompts: PromptJudgement[], reasons: Reason[], witness: TokenJudgement['witness'] = 'harness'): TokenJudgement {
  const compared = prompts.reduce((s, p) => s + p.compared, 0);
  if (compared === 0 && reasons.length === 0) reasons.push(reason('NO_TOKENS', 'zero tokens compared — there is nothing to judge'));
  return {
    source, witness, mode, prompts, compared,
    matched: prompts.reduce((s, p) => s + p.matched, 0),
    fullRows: prompts.filter((p) => p.generated >= p.goldenWidth).length,
    shortRows: prompts.filter((p) => p.generated < p.goldenWidth).length,
    word: word(prompts, reasons),
    reasons,
  };
}

// From the events file's token events: every position compared, the first mismatch as got/exp,
// a near-tie only where the golden licenses it and its margin at that position is within the licence.
export function judgeFromEvents(golden: Golden, mode: string, tokens: Map<number, number[]>, promptTokenCounts: Map<number, number>): TokenJudgement {
  const reasons: Reason[] = [];
  for (const [id, n] of promptTokenCounts) {
    const gp = golden.prompts.find((p) => p.id === id);
    if (!gp) reasons.push(reason('GOLDEN_MISMATCH', `the engine ran prompt ${id}, which golden ${golden.name} does not have`));
    else if (gp.promptTokens.length !== n) reasons.push(reason('GOLDEN_MISMATCH', `prompt ${id}: the engine ran ${n} prompt tokens, golden ${golden.name} has ${gp.promptTokens.length} — the golden's prompts differ from what ran`));
  }
  const prompts = golden.prompts.map((gp) => classify(golden, gp, tokens.get(gp.id) ?? [], null));
  return totals('events', mode, prompts, reasons);
}

// A got: line's ids (spaces or commas, as the seeds' engine prints them); null when absent or not ids.
function parseIds(s: string | null): number[] | null {
  return s === null ? null : parseIdList(s);
}

// From the printed rows (no events file): counts per prompt, positions only where got/exp were printed.
export function judgeFromRows(golden: Golden, mode: string, rows: PromptRow[]): TokenJudgement {
  const reasons: Reason[] = [];
  const prompts: PromptJudgement[] = [];
  const seenIds: boolean[] = [];
  for (const gp of golden.prompts) {
    const row = rows.find((r) => r.prompt === gp.id);
    if (!row) {
      prompts.push(classify(golden, gp, [], null));
      seenIds.push(false);
      continue;
    }
    if (row.promptTokens !== null && row.promptTokens !== gp.promptTokens.length) {
      reasons.push(reason('GOLDEN_MISMATCH', `prompt ${gp.id}: the engine ran ${row.promptTokens} prompt tokens, golden ${golden.name} has ${gp.promptTokens.length} — the golden's prompts differ from what ran`));
    }
    const got = parseIds(row.got);
    seenIds.push(got !== null);
    prompts.push(classify(golden, gp, got, { generated: row.generated ?? 0, compared: row.compared ?? 0, matched: row.matched ?? 0 }));
  }
  for (const r of rows) if (!golden.prompts.some((p) => p.id === r.prompt)) reasons.push(reason('GOLDEN_MISMATCH', `the engine ran prompt ${r.prompt}, which golden ${golden.name} does not have`));
  // Counts with no ids anywhere are the engine's own claim: the harness saw no token to compare.
  const judged = totals(seenIds.some(Boolean) ? 'printed rows' : 'engine claim', mode, prompts, reasons);
  return { ...judged, witness: rowsWitness(judged.word, prompts, seenIds) };
}

// Who saw the ids a verdict from rows rests on: the harness when it read ids (got: lines) for every prompt,
// or for a prompt whose divergence it found itself; otherwise the verdict is the engine's claim.
export function rowsWitness(word: TokenJudgement['word'], prompts: readonly PromptJudgement[], seenIds: readonly boolean[]): TokenJudgement['witness'] {
  if (prompts.length > 0 && seenIds.every(Boolean) && seenIds.length === prompts.length) return 'harness';
  if (word === 'DIVERGENCE' && prompts.some((p, i) => seenIds[i] && p.status === 'divergence')) return 'harness';
  return 'engine';
}

// From a profile's `ids` lines (a driver that prints each prompt's generated ids): every position judged by
// the harness, exactly as from events. A line that is not a list of integers is named, and the leg is void.
export function judgeFromIds(golden: Golden, mode: string, ids: IdsLine[], rows: PromptRow[]): TokenJudgement {
  const reasons: Reason[] = [];
  const tokens = new Map<number, number[]>();
  for (const l of ids) {
    if (l.tokens === null) reasons.push(reason('BAD_IDS', `prompt ${l.prompt}: the ids line (log line ${l.line}) is not a list of integers: ${JSON.stringify(l.raw.slice(0, 60))} — print the generated ids as integers separated by spaces`));
    else if (tokens.has(l.prompt)) reasons.push(reason('BAD_IDS', `prompt ${l.prompt}: ids printed twice (log line ${l.line}) — print one ids line per prompt`));
    else tokens.set(l.prompt, l.tokens);
  }
  for (const id of tokens.keys()) if (!golden.prompts.some((p) => p.id === id)) reasons.push(reason('GOLDEN_MISMATCH', `the engine ran prompt ${id}, which golden ${golden.name} does not have`));
  for (const r of rows) {
    const gp = golden.prompts.find((p) => p.id === r.prompt);
    if (gp && r.promptTokens !== null && r.promptTokens !== gp.promptTokens.length) {
      reasons.push(reason('GOLDEN_MISMATCH', `prompt ${gp.id}: the engine ran ${r.promptTokens} prompt tokens, golden ${golden.name} has ${gp.promptTokens.length} — the golden's prompts differ from what ran`));
    }
  }
  const prompts = golden.prompts.map((gp) => classify(golden, gp, tokens.get(gp.id) ?? [], null));
  return totals('printed ids', mode, prompts, reasons);
}

import { describe, expect, it } from 'vitest';
import { createDriverReader } from '../../src/profiles/reader.js';
import { NH_REF } from '../../src/profiles/builtin.js';
import type { Profile } from '../../src/profiles/types.js';
import { parseEngineEvents } from '../../src/gates/leg/events.js';
import { eventProblems, idsProblems, judgeTokens, witnessRequired } from '../../src/gates/leg/witness.js';
import { countersAgainstIds, crossCheck } from '../../src/gates/leg/crosscheck.js';
import { rowsWitness } from '../../src/gates/leg/tokens.js';
import { ENGINE_CLAIM, runWitness, witnessedWord } from '../../src/verdict/witness.js';
import { golden } from '../gates/fixtures.js';

// The witness rule (SPEC §2, issue 21): declared ids never fall back to the engine's counters; an engine-only
// pass is the engine's claim; the ids the harness read and the engine's counters must agree.

const ROWS = [
  '[nh-ref] engine loaded in 0.01 s',
  '[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s',
  '[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s',
  '[nh-ref] TOKEN MATCH: 8/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)',
  '[nh-ref] STRICT PASS',
];

const IDS_PROFILE: Profile = {
  name: 'ids-test', prefix: '[nh-ref]',
  patterns: [
    ...NH_REF.patterns,
    { role: 'ids', regex: String.raw`^{prefix}\s+prompt\s+(?<prompt>\d+)\s+ids:\s*(?<tokens>.*)$`, captures: { prompt: 'int', tokens: 'string' } },
  ],
};

function read(lines: readonly string[], profile: Profile = NH_REF) {
  const r = createDriverReader(profile);
  lines.forEach((l, i) => r.push(l, 1 + i * 0.01));
  return r.report();
}

const ev = (lines: object[], end = '\n') => lines.map((l) => JSON.stringify(l)).join('\n') + end;
const tok = (prompt: number, index: number, token: number, tNs: number) => ({ event: 'token', tNs: String(tNs), prompt, index, token, mode: 'decode' });
const GOOD = [
  { event: 'load_end', tNs: '1000', loadS: 0.01 },
  { event: 'prompt_start', tNs: '2000', prompt: 0, promptTokens: 3, mode: 'decode' },
  ...[10, 11, 12, 13].map((t, i) => tok(0, i, t, 3000 + i * 1000)),
  { event: 'prompt_done', tNs: '8000', prompt: 0, generated: 4, mode: 'decode' },
  { event: 'prompt_start', tNs: '9000', prompt: 1, promptTokens: 2, mode: 'decode' },
  ...[20, 21, 22, 23].map((t, i) => tok(1, i, t, 10000 + i * 1000)),
  { event: 'prompt_done', tNs: '15000', prompt: 1, generated: 4, mode: 'decode' },
  { event: 'done', tNs: '16000', exitCode: 0 },
];

const judge = (o: { events?: string | null; lines?: readonly string[]; profile?: Profile; ranToEnd?: boolean }) =>
  judgeTokens({ golden: golden(), mode: 'decode', eventsFile: o.events === undefined ? null : 'e.jsonl', events: o.events === undefined ? null : o.events === null ? { ...parseEngineEvents(''), missing: true } : parseEngineEvents(o.events), report: read(o.lines ?? ROWS, o.profile), ranToEnd: o.ranToEnd ?? true });

const codes = (j: { reasons: Array<{ code: string }> }) => j.reasons.map((r) => r.code);

describe('declared events: the harness saw them, or the leg is VOID by name', () => {
  it('good events: STRICT PASS witnessed by the harness', () => {
    const j = judge({ events: ev(GOOD) });
    expect([j.word, j.source, j.witness, j.compared]).toEqual(['STRICT PASS', 'events', 'harness', 8]);
  });

  it('missing, empty, unparsable, truncated: each VOID by its own code, never the rows\' claim', () => {
    const missing = judge({ events: null });
    expect([missing.word, codes(missing), missing.witness]).toEqual(['VOID', ['EVENTS_MISSING'], 'engine']);
    expect(missing.reasons[0]!.message).toMatch(/declares an events file \(driver\.eventsArgv\) and the driver wrote none \(e\.jsonl\)/);
    const empty = judge({ events: '' });
    expect([empty.word, codes(empty)]).toEqual(['VOID', ['EVENTS_EMPTY']]);
    expect(empty.reasons[0]!.message).toMatch(/holds no event at all/);
    const garbage = judge({ events: 'not json\n{"x":1}\n' });
    expect(codes(garbage)).toEqual(['EVENTS_UNPARSABLE']);
    expect(garbage.reasons[0]!.message).toMatch(/2 line\(s\) of e\.jsonl are not events: line 1 \(not JSON\); line 2 \(/);
    const cut = judge({ events: ev(GOOD.slice(0, 8), '\n') + '{"event":"tok' });
    expect(codes(cut)).toEqual(['EVENTS_TRUNCATED', 'EVENTS_TRUNCATED']);
    expect(cut.reasons[0]!.message).toMatch(/ends inside line 9 \(not JSON\) with no newline/);
    expect(cut.reasons[1]!.message).toMatch(/no done event/);
  });

  it('the file must hold this mode\'s tokens, every index, as many as prompt_done says, and a done event', () => {
    for (const only of [[GOOD[0]!], [GOOD[GOOD.length - 1]!], [GOOD[1]!]]) {
      expect(judge({ events: ev(only) }).reasons[0]!.message).toMatch(/^e\.jsonl holds no token event for mode decode — /);
    }
    const other = judge({ events: ev(GOOD.map((e) => ('mode' in e ? { ...e, mode: 'fresh-prefill' } : e))) });
    expect(codes(other)).toEqual(['EVENTS_EMPTY']);
    expect(other.reasons[0]!.message).toMatch(/no token event for mode decode \(it has token events for: fresh-prefill\)/);
    const hole = judge({ events: ev(GOOD.filter((e) => !('index' in e && e.prompt === 0 && e.index === 1))) });
    expect(codes(hole)).toEqual(['EVENTS_TRUNCATED']);
    expect(hole.reasons[0]!.message).toMatch(/prompt 0: 1 token index\(es\) below 4 missing; prompt 0: prompt_done says 4 tokens, 3 token event\(s\) written/);
    const twice = judge({ events: ev([...GOOD.slice(0, 3), tok(0, 0, 10, 3500), ...GOOD.slice(3)]) });
    expect(codes(twice)).toEqual(['EVENTS_INCONSISTENT']);
    expect(twice.reasons[0]!.message).toMatch(/prompt 0: 1 token index\(es\) written twice; prompt 0: prompt_done says 4 tokens, 5 token event\(s\) written/);
    const noDone = judge({ events: ev(GOOD.slice(0, -1)) });
    expect(codes(noDone)).toEqual(['EVENTS_TRUNCATED']);
  });

  it('a driver that did not run to its end is void for that already: its events are judged as they are', () => {
    const j = judge({ events: null, ranToEnd: false });
    expect(codes(j)).toEqual(['NO_TOKENS']);
  });

  it('names at most three unreadable lines and counts the rest', () => {
    const p = eventProblems('e.jsonl', parseEngineEvents('a\nb\nc\nd\ne\n'), 'decode');
    expect(p[0]!.message).toMatch(/5 line\(s\) of e\.jsonl are not events: line 1 \(not JSON\); line 2 \(not JSON\); line 3 \(not JSON\) \(the first 3 named\)/);
  });
});

describe('the reasons say what to do, and keep what else was wrong', () => {
  it('each events reason ends with the fix; the gate\'s reason names the source and the fix', () => {
    for (const e of [null, '', 'x\n', ev(GOOD.slice(0, -1))]) {
      const j = judge({ events: e });
      expect(j.reasons[0]!.message).toMatch(/— (the harness saw no ids; )?write one JSON event per line \(docs\/engines\.md, schemas\/events\.json\), a done event last$/);
    }
    expect(witnessRequired(judge({}), 'harness')?.message).toBe('STRICT PASS is the engine\'s claim: the harness saw no ids (engine claim), and the gate requires "witness": "harness" — give the recipe an events file or a profile with ids lines');
  });

  it('more than three problems of a kind: three named, the rest counted', () => {
    const holes = judge({ events: ev([GOOD[0]!, ...[0, 1, 2, 3, 4].map((p) => tok(p, 1, 5, 3000 + p)), GOOD[GOOD.length - 1]!]) });
    expect(holes.reasons.find((r) => r.code === 'EVENTS_TRUNCATED')!.message).toMatch(/prompt 0: 1 token index\(es\) below 2 missing; prompt 1: .*; prompt 2: .*; and 2 more — /);
  });

  it('a golden mismatch found beside an events problem is kept; "zero tokens compared" is not repeated', () => {
    const other = ev(GOOD.map((e) => (e.event === 'prompt_start' && e.prompt === 0 ? { ...e, promptTokens: 9 } : e)).slice(0, -1));
    const j = judge({ events: other });
    expect(codes(j)).toEqual(['EVENTS_TRUNCATED', 'GOLDEN_MISMATCH']);
    expect(codes(judge({ events: '' }))).toEqual(['EVENTS_EMPTY']);
    expect(judge({ events: ev(GOOD.slice(0, -1)) }).witness).toBe('harness');
  });

  it('only the rows of the first block (or none yet) are judged: a second mode\'s rows are not this leg\'s', () => {
    const second = [...ROWS.slice(0, 4), '[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=1 wall=0.01s', '[nh-ref] TOKEN MATCH: 1/4 over 1 prompt(s) (full rows=1, short rows=0, mode=fresh-prefill)'];
    expect(judge({ lines: second }).word).toBe('STRICT PASS');
  });

  it('a driver that did not run to its end: ids lines are judged as they are, not voided for their absence', () => {
    expect(codes(judge({ lines: ROWS, profile: IDS_PROFILE, ranToEnd: false }))).toEqual(['NO_TOKENS']);
  });
});

describe('declared ids lines', () => {
  const IDS = ['[nh-ref] engine loaded in 0.01 s', '[nh-ref] prompt 0 ids: 10 11 12 13', '[nh-ref] prompt 1 ids: 20 21 22 23'];
  it('ids for every prompt: the harness judges them', () => {
    const j = judge({ lines: IDS, profile: IDS_PROFILE });
    expect([j.word, j.source, j.witness]).toEqual(['STRICT PASS', 'printed ids', 'harness']);
  });
  it('a profile that declares ids and a driver that prints only counters: VOID IDS_MISSING', () => {
    const j = judge({ lines: ROWS, profile: IDS_PROFILE });
    expect([j.word, codes(j), j.witness]).toEqual(['VOID', ['IDS_MISSING'], 'engine']);
    expect(j.reasons[0]!.message).toMatch(/profile 'ids-test' reads ids lines \(role ids\) and the driver printed none/);
  });
  it('a row without its ids line is named', () => {
    const rep = read([...IDS.slice(0, 2), ROWS[1]!, ROWS[2]!], IDS_PROFILE);
    expect(idsProblems(rep)[0]!.message).toMatch(/rows without an ids line: prompt 1 \(row at log line 4\)/);
    expect(idsProblems(read(ROWS))).toEqual([]);
  });
});

describe('a recipe that declares no ids: counters are the engine\'s claim', () => {
  it('an engine-only pass is STRICT PASS with witness engine, printed as the engine\'s claim', () => {
    const j = judge({});
    expect([j.word, j.source, j.witness]).toEqual(['STRICT PASS', 'engine claim', 'engine']);
    expect(witnessedWord(j.word, j.witness)).toBe("STRICT PASS (engine's claim: the harness saw no ids)");
    expect(witnessedWord('NEAR-TIE PASS', 'engine')).toBe(`NEAR-TIE PASS (${ENGINE_CLAIM})`);
    expect(witnessedWord('DIVERGENCE', 'engine')).toBe('DIVERGENCE');
    expect(witnessedWord('STRICT PASS', 'harness')).toBe('STRICT PASS');
  });

  it('a gate that requires the harness voids a claimed pass, and leaves a claimed failure a failure', () => {
    const j = judge({});
    expect(witnessRequired(j, 'harness')?.code).toBe('NOT_WITNESSED');
    expect(witnessRequired(j, undefined)).toBeNull();
    expect(witnessRequired({ ...j, witness: 'harness' }, 'harness')).toBeNull();
    expect(witnessRequired({ ...j, word: 'DIVERGENCE' }, 'harness')).toBeNull();
    expect(witnessRequired({ ...j, word: 'NEAR-TIE PASS' }, 'harness')?.code).toBe('NOT_WITNESSED');
  });

  it('got: lines seen for every prompt make the harness the witness; for the diverging prompt only, of the divergence', () => {
    const p = (status: 'match' | 'divergence') => ({ prompt: 0, goldenWidth: 4, generated: 4, compared: 4, matched: 4, status, firstMismatch: null, got: null, exp: [] });
    expect(rowsWitness('STRICT PASS', [p('match'), p('match')], [true, true])).toBe('harness');
    expect(rowsWitness('STRICT PASS', [p('match'), p('match')], [true, false])).toBe('engine');
    expect(rowsWitness('DIVERGENCE', [p('divergence'), p('match')], [true, false])).toBe('harness');
    expect(rowsWitness('DIVERGENCE', [p('match'), p('divergence')], [true, false])).toBe('engine');
    expect(rowsWitness('STRICT PASS', [], [])).toBe('engine');
  });

  it('a run\'s witness: the harness only when it saw the ids of every judged leg', () => {
    expect(runWitness([])).toBeNull();
    expect(runWitness([{ witness: 'harness' }])).toBe('harness');
    expect(runWitness([{ witness: 'harness' }, { witness: 'engine' }])).toBe('engine');
    expect(runWitness([{ witness: 'engine' }])).toBe('engine');
    expect(runWitness([{ witness: null }, { witness: 'harness' }])).toBe('harness');
    expect(runWitness([{ witness: null }])).toBeNull();
  });
});

describe('got:/exp: lines bind to their prompt whatever the order', () => {
  const ROW0 = '[nh-ref] prompt 0: prompt_tokens=3 generated=4 golden_width=4 compared=4 matched=3 wall=0.01s';
  const ROW1 = '[nh-ref] prompt 1: prompt_tokens=2 generated=4 golden_width=4 compared=4 matched=4 wall=0.01s';
  const TM = '[nh-ref] TOKEN MATCH: 7/8 over 2 prompt(s) (full rows=2, short rows=0, mode=decode)';
  const GOT = '[nh-ref] prompt 0 got: 10,11,99,13';
  const EXP = '[nh-ref] prompt 0 exp: 10,11,12,13';
  const outcome = (lines: string[]) => {
    const j = judge({ lines: ['[nh-ref] engine loaded in 0.01 s', ...lines, TM, '[nh-ref] DIVERGENCE'] });
    return [j.word, j.witness, j.prompts[0]!.firstMismatch?.position, j.prompts[0]!.firstMismatch?.got];
  };
  it('before the row, after it, or after a later row: the same DIVERGENCE at position 2, seen by the harness', () => {
    const expected = ['DIVERGENCE', 'harness', 2, 99];
    expect(outcome([GOT, EXP, ROW0, ROW1])).toEqual(expected);
    expect(outcome([ROW0, GOT, EXP, ROW1])).toEqual(expected);
    expect(outcome([ROW0, ROW1, GOT, EXP])).toEqual(expected);
    expect(outcome([ROW1, GOT, ROW0, EXP])).toEqual(expected);
  });
  it('without an index: after its row by the grammar, or before the block\'s first row for that row', () => {
    expect(outcome([ROW0, '        got: 10,11,99,13', ROW1])).toEqual(['DIVERGENCE', 'harness', 2, 99]);
    expect(outcome(['        got: 10,11,99,13', ROW0, ROW1])).toEqual(['DIVERGENCE', 'harness', 2, 99]);
  });
  it('a got: line whose row never comes is named, and the leg is void', () => {
    const j = judge({ lines: ['[nh-ref] engine loaded in 0.01 s', '[nh-ref] prompt 7 got: 1 2', ROW0, ROW1, TM] });
    expect(codes(j)).toEqual(['BAD_IDS']);
    expect(j.reasons[0]!.message).toMatch(/got: at log line 2 \(prompt 7\) bound to no prompt row/);
    const bare = judge({ lines: ['[nh-ref] engine loaded in 0.01 s', ROW0, ROW1, TM, '        exp: 1 2'] });
    expect(bare.reasons[0]!.message).toBe('exp: at log line 5 bound to no prompt row — print them with the prompt index ("prompt N got: …") or right after the row');
  });
});

describe('the ids the harness read and the engine\'s counters agree, or the leg says which is wrong', () => {
  it('a row that claims more matches than the ids give: the engine\'s counter is named', () => {
    const wrong = GOOD.map((e) => ('index' in e && e.prompt === 0 && e.index === 2 ? { ...e, token: 99 } : e));
    const j = judge({ events: ev(wrong) });
    const problems = countersAgainstIds(j, read(ROWS));
    expect(problems).toEqual([
      "prompt 0: the engine's row (log line 2) says matched=4, the ids the harness read (events) give 3 — the engine's counter is wrong, or it reported other ids than it counted",
    ]);
    const c = crossCheck(j, read(ROWS), 0, 0);
    expect(c.agree).toBe(false);
    expect(c.explanation).toContain("the engine's counter is wrong");
  });
  it('an ids line that differs from the events: both are the driver\'s, so it says it reported two sequences', () => {
    const j = judge({ events: ev(GOOD) });
    const rep = read(['[nh-ref] engine loaded in 0.01 s', '[nh-ref] prompt 0 ids: 10 11 12 14'], IDS_PROFILE);
    expect(countersAgainstIds(j, rep)).toEqual(['prompt 0: the ids line (log line 2) and the events file differ at position 3 (14 vs 13) — the driver reported two different id sequences']);
  });
  it('when the harness saw no ids, the engine\'s claim stands unchecked, and the cross-check says so', () => {
    const j = judge({ events: null });
    const c = crossCheck(j, read(ROWS), 0, 0);
    expect([c.agree, c.explanation]).toEqual([false, "not cross-checked: the harness saw no ids (EVENTS_MISSING), so the engine's claim (8/8 matched, STRICT PASS) stands unchecked"]);
    expect(crossCheck(judge({ events: null, ranToEnd: false }), read(ROWS), 0, 0).explanation).not.toMatch(/not cross-checked/);
  });

  it('counts judged from counts alone have nothing to be checked against', () => {
    const j = judge({});
    expect(countersAgainstIds(j, read(ROWS))).toEqual([]);
  });
});

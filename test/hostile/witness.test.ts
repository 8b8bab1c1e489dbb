import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostileA3 } from './witness-repo.js';

// Nothing passes unseen (issue 21): a hostile engine per case, each through a recipe, each with its named
// outcome. Exit codes: 0 passed, 1 failed, 3 void (README).

const voidCodes = (leg: Record<string, any>) => (leg.voidReasons as Array<{ code: string }>).map((r) => r.code);

describe('declared events the harness did not see: VOID by name, never the engine\'s claim', () => {
  it.each([
    ['events-absent', 'EVENTS_MISSING', /declares an events file \(driver\.eventsArgv\) and the driver wrote none/],
    ['events-empty', 'EVENTS_EMPTY', /holds no event at all/],
    ['events-garbage', 'EVENTS_UNPARSABLE', /3 line\(s\) of legs\/leg-01-decode\.events\.jsonl are not events: line 1 \(not JSON\)/],
    ['events-truncated', 'EVENTS_TRUNCATED', /ends inside line \d+ .*with no newline|is incomplete/],
  ])('%s → VOID %s (exit 3), though the engine printed TOKEN MATCH 8/8 and STRICT PASS', async (kase, code, message) => {
    const { run, doc, leg } = await hostileA3(kase, 'events');
    expect(run.code).toBe(3);
    expect(doc.verdict.word).toBe('VOID');
    expect(leg.verdict).toBe('VOID');
    expect(voidCodes(leg)).toContain(code);
    expect(leg.voidReasons.find((r: { code: string }) => r.code === code).message).toMatch(message);
    expect(leg.tokens.source).toBe('events');
    expect(leg.quantities.perOutputToken.status).toBe('refused');
  });

  it('a profile that declares ids lines and a driver that prints only counters: VOID IDS_MISSING', async () => {
    const { run, leg } = await hostileA3('pass', 'ids');
    expect(run.code).toBe(3);
    expect(voidCodes(leg)).toEqual(['IDS_MISSING']);
    expect(leg.witness).toBe('engine');
  });
});

describe('an engine-only pass is the engine\'s claim, everywhere', () => {
  it('counters only, no ids declared: STRICT PASS, exit 0, witness engine in text, JSON, summary, JUnit and ledger', async () => {
    const { run, doc, leg, dir, text } = await hostileA3('pass', 'counters');
    expect(run.code).toBe(0);
    expect([doc.verdict.word, doc.verdict.witness, leg.witness, leg.tokens.witness, leg.tokens.source]).toEqual(['STRICT PASS', 'engine', 'engine', 'engine', 'engine claim']);
    expect(text('summary.md')).toContain("## nh-gate a3: STRICT PASS (engine's claim: the harness saw no ids)");
    expect(text('summary.md')).toMatch(/→ STRICT PASS \(engine's claim: the harness saw no ids\)/);
    expect(text('junit.xml')).toContain("<system-out>STRICT PASS (engine&apos;s claim: the harness saw no ids)</system-out>");
    const ledger = readFileSync(join(dir, 'ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger.at(-1)).toMatchObject({ verdict: 'STRICT PASS', witness: 'engine' });
  });

  it('a gate that requires "witness": "harness" voids that pass (NOT_WITNESSED, exit 3)', async () => {
    const { run, leg } = await hostileA3('pass', 'counters', { gate: { witness: 'harness' } });
    expect(run.code).toBe(3);
    expect(voidCodes(leg)).toEqual(['NOT_WITNESSED']);
    expect(leg.voidReasons[0].message).toMatch(/STRICT PASS is the engine's claim: the harness saw no ids \(engine claim\), and the gate requires "witness": "harness"/);
  });

  it('the same gate passes a leg the harness witnessed (events), exit 0', async () => {
    const { run, doc } = await hostileA3('pass', 'events', { gate: { witness: 'harness' } });
    expect(run.code).toBe(0);
    expect([doc.verdict.word, doc.verdict.witness]).toEqual(['STRICT PASS', 'harness']);
  });
});

describe('got:/exp: lines bind to their prompt by index, whatever the order', () => {
  it.each(['got-before-row', 'got-after-row'])('%s → DIVERGENCE (exit 1) at position 2, witnessed by the harness', async (kase) => {
    const { run, leg } = await hostileA3(kase, 'counters', { env: { HOSTILE_WRONG: '1' } });
    expect(run.code).toBe(1);
    expect(leg.verdict).toBe('DIVERGENCE');
    expect(leg.witness).toBe('harness');
    expect(leg.tokens.prompts[0].firstMismatch).toMatchObject({ position: 2, got: 13, exp: 12 });
  });
});

describe('the ids the harness read and the engine\'s counters must agree', () => {
  it('a row that claims 4 matched where the events give 3: DIVERGENCE, and the leg names the engine\'s counter', async () => {
    const { run, leg } = await hostileA3('counters-lie', 'events');
    expect(run.code).toBe(1);
    expect(leg.verdict).toBe('DIVERGENCE');
    expect(leg.crossCheck.agree).toBe(false);
    expect(leg.crossCheck.explanation).toMatch(/prompt 0: the engine's row \(log line \d+\) says matched=4, the ids the harness read \(events\) give 3 — the engine's counter is wrong/);
  });
});

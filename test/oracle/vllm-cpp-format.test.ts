// The vllm.cpp oracle.json format, pure: read (with the engine's refusals), the engine's own key-scanner
// reading beside it, conversion to an nh-gate golden, and the writer. Real engine files as input.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GoldenSchema } from '../../src/config/golden.js';
import { NhGateError } from '../../src/errors.js';
import { goldenToOracle, oracleToGolden, serializeOracle } from '../../src/oracle/vllmCpp/convert.js';
import { pyFloat, pyJsonDump, pyString } from '../../src/oracle/vllmCpp/pyjson.js';
import { parseOracleText } from '../../src/oracle/vllmCpp/read.js';
import { ScanError, scanOracle } from '../../src/oracle/vllmCpp/scan.js';
import { repoRoot } from '../helpers/engine.js';

const FIX = join(repoRoot, 'test/fixtures/vllm-cpp');
const A767 = join(FIX, 'nemotron_35_lightning_greedy/oracle.json');
const OLD = join(FIX, 'at-9735f150/oracle.json');
const text = (f: string): string => readFileSync(f, 'utf8');
const meta = { name: 'nemotron_35_lightning_greedy', sha256: 'a'.repeat(64), importedFrom: '/x/oracle.json' };
const golden = (t: string, file = 'oracle.json') => GoldenSchema.parse(oracleToGolden(parseOracleText(t, file), meta));

// The error a bad file gets: code, message (file and field) and the exit class (usage = exit 2).
function refusal(t: string): NhGateError {
  try {
    parseOracleText(t, 'bad/oracle.json');
  } catch (e) {
    if (e instanceof NhGateError) return e;
    throw e;
  }
  throw new Error('accepted a bad file');
}
const doc = (): Record<string, unknown> => JSON.parse(text(A767));

describe('reading the engine file', () => {
  it('maps the committed golden onto an nh-gate golden with its provenance', () => {
    const g = golden(text(A767));
    expect(g.oracle).toEqual({ name: 'vllm', version: '0.23.1rc1.dev1511+g555967922' });
    expect(g.checkpoint).toEqual({ name: '/mnt/nas_share/checkpoints/nemotron-3.5-lightning-30b-nvfp4', revision: '29f2d1746d8f41e316523194b19018707749b1b1' });
    expect(g.sampling).toEqual({ kind: 'greedy', maxNewTokens: 32 });
    expect(g.engineConfigRecorded).toBe('no');
    expect(g.capturedAt).toBe('2026-08-12T22:37:57Z');
    expect(g.nearTie).toEqual({ licensed: false, maxMarginNats: 0 });
    expect(g.determinism).toBeNull();
    expect(g.prompts.map((p) => [p.promptTokens.length, p.tokens.length])).toEqual([[5, 32], [8, 32], [13, 32]]);
    expect(g.prompts.every((p) => p.top2MarginNats === null)).toBe(true);
    expect(g.prompts[0]!.tokens.slice(0, 3)).toEqual([6993, 1046, 1256]);
  });

  it('the version without a capture block says nothing about the engine config: unknown, not no', () => {
    const g = golden(text(OLD));
    expect(g.engineConfigRecorded).toBe('unknown');
    expect(g.capturedAt).toMatch(/^unknown: /);
  });

  it('a recorded capture with agreeing legs is determinism evidence; recorded engine config is kept', () => {
    const d = doc();
    d.capture = { engine_config_recorded: true, legs: 2, legs_agree: true, captured_utc: 't', host: 'h', engine: { profile: 'nhspeed-a' } };
    const g = golden(JSON.stringify(d, null, 2));
    expect(g.engineConfigRecorded).toBe('yes');
    expect(g.determinism).toEqual({ runs: 2, multiValuedCells: 0 });
    expect(g.engineConfig).toEqual({ engine: { profile: 'nhspeed-a' } });
  });

  it('the engine scanner reads the committed files as their JSON does', () => {
    const s = scanOracle(text(A767));
    expect(s.vllm).toBe('0.23.1rc1.dev1511+g555967922');
    expect(s.captureRecorded).toBe(0);
    expect(s.entries.map((e) => e.tokenIds.length)).toEqual([32, 32, 32]);
    expect(scanOracle(text(OLD)).captureRecorded).toBe(-1);
  });
});

describe('bad input: named, exit 2, mirroring the engine reader', () => {
  const cases: Array<[string, (d: Record<string, unknown>) => unknown, RegExp]> = [
    ['an empty golden array', (d) => { d.golden = []; }, /bad\/oracle\.json: golden: empty: the engine refuses a golden with ZERO entries/],
    ['an entry with empty prompt_token_ids', (d) => { (d.golden as Array<Record<string, unknown>>)[1]!.prompt_token_ids = []; }, /golden\.1\.prompt_token_ids: empty: the engine refuses an entry with an EMPTY prompt_token_ids/],
    ['an entry with empty token_ids', (d) => { (d.golden as Array<Record<string, unknown>>)[2]!.token_ids = []; }, /golden\.2\.token_ids: empty: the engine refuses an entry with an EMPTY token_ids/],
    ['a non-integer id', (d) => { ((d.golden as Array<Record<string, unknown>>)[0]!.token_ids as number[])[4] = 1.5; }, /golden\.0\.token_ids\.4: a token id must be an integer/],
    ['a string id', (d) => { ((d.golden as Array<Record<string, unknown>>)[0]!.prompt_token_ids as unknown[])[0] = '1784'; }, /golden\.0\.prompt_token_ids\.0: a token id must be a number/],
    ['an id past int32', (d) => { ((d.golden as Array<Record<string, unknown>>)[0]!.token_ids as number[])[0] = 2 ** 31; }, /token_ids\.0: a token id must fit in int32/],
    ['no golden key', (d) => { delete d.golden; }, /golden: /],
    ['an unknown key', (d) => { d.goldne = []; }, /goldne: unknown key — did you mean 'golden'\?/],
    ['a non-greedy sampling block', (d) => { (d.sampling as Record<string, unknown>).temperature = 0.7; }, /sampling\.temperature: nh-gate goldens are greedy/],
    ['a ragged row', (d) => { ((d.golden as Array<Record<string, unknown>>)[0]!.token_ids as number[]).pop(); }, /golden\.0\.token_ids: 31 token ids against sampling\.max_tokens=32/],
  ];
  for (const [what, edit, message] of cases) {
    it(`refuses ${what}`, () => {
      const d = doc();
      edit(d);
      const e = refusal(JSON.stringify(d, null, 2));
      expect(e.code).toBe('BAD_INPUT');
      expect(e.exitClass).toBe('usage');
      expect(e.message).toMatch(message);
      expect(e.hint).toMatch(/nothing was written/);
    });
  }

  it('refuses a truncated file whole, though the engine would read the entries before the cut', () => {
    const t = text(A767);
    const cut = t.slice(0, t.lastIndexOf('"prompt": "Explain'));
    expect(scanOracle(cut).entries).toHaveLength(2); // the engine's reading: fewer entries, no refusal
    expect(refusal(cut).message).toMatch(/bad\/oracle\.json: \(root\): not valid JSON .*truncated/);
  });

  it('the scanner refuses what the driver refuses', () => {
    expect(() => scanOracle('{"golden": [{"prompt_token_ids": [], "token_ids": [1]}]}')).toThrow(ScanError);
    expect(() => scanOracle('{"golden": [{"prompt_token_ids": [1, x], "token_ids": [1]}]}')).toThrow(/non-numeric entry in "prompt_token_ids"/);
    expect(() => scanOracle('{"vllm": "1"}')).toThrow(/no "golden" array/);
  });

  it('refuses a file the engine scanner would read differently from its JSON', () => {
    const d = doc();
    // A quoted key name at the end of one string and a bracket in the next: the scanner takes the
    // bracket for entry 1's prompt ids (main.cpp finds keys by text and arrays by the next '[').
    const g = d.golden as Array<Record<string, unknown>>;
    g[0]!.text = 'see "prompt_token_ids';
    g[1]!.prompt = '[5] tricky';
    const e = refusal(JSON.stringify(d, null, 2));
    expect(e.message).toMatch(/would read this file differently from its JSON/);
    expect(e.message).toMatch(/golden\.1\.prompt_token_ids: the driver reads other ids/);
  });
});

describe('writing the engine file back', () => {
  it('writes the committed file exactly as its writer would: the original plus the final newline it lacks', () => {
    for (const f of [A767, OLD]) expect(serializeOracle(golden(text(f)))).toBe(text(f) + '\n');
  });

  it('round-trips: import → export → import is the same golden', () => {
    for (const f of [A767, OLD]) {
      const g1 = golden(text(f));
      const g2 = golden(serializeOracle(g1));
      expect(g2).toEqual(g1);
      expect(serializeOracle(g2)).toBe(serializeOracle(g1));
    }
  });

  it('a golden that was not imported is written from its fields, and reads back to the same tokens', () => {
    const g1 = golden(text(A767));
    const { source: _s, ...plain } = g1;
    const out = serializeOracle(GoldenSchema.parse({ ...plain, engineConfigRecorded: 'yes' }));
    const g2 = golden(out);
    expect(g2.prompts.map((p) => p.tokens)).toEqual(g1.prompts.map((p) => p.tokens));
    expect(g2.engineConfigRecorded).toBe('yes');
    expect(goldenToOracle(GoldenSchema.parse({ ...plain, oracle: { name: 'nh-ref-oracle', version: '1' } })).vllm).toBe('nh-ref-oracle 1');
  });

  it('writes Python floats and ASCII-only strings', () => {
    expect([0, 0.3, 1e-5, 1.5e16, 123.5, -2].map(pyFloat)).toEqual(['0.0', '0.3', '1e-05', '1.5e+16', '123.5', '-2.0']);
    expect(pyString('Grüße\u007f')).toBe('"Gr\\u00fc\\u00dfe\\u007f"');
    expect(pyJsonDump({ a: [], b: {}, c: [1, 0.5] })).toBe('{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    0.5\n  ]\n}\n');
  });
});

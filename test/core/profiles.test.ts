import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDriverReader } from '../../src/profiles/reader.js';
import { getProfile, listProfiles, resolveProfile } from '../../src/config/profiles.js';
import { NEMOTRON_H, NH_REF } from '../../src/profiles/builtin.js';
import { parseDoctestSummaries, parseDoctestSummary, judgeDoctest } from '../../src/profiles/doctest.js';
import { parseFeatureTable, checkRequiredCells } from '../../src/profiles/features.js';
import { formatTimedLine, parseTimedLine } from '../../src/profiles/timed.js';
import { parseKv, typedCapture } from '../../src/profiles/compile.js';
import { splitArchs } from '../../src/profiles/reader.js';
import { NhGateError } from '../../src/errors.js';
import { A3_PASS, ARM_DECODE, ARM_PREFILL, DOCTEST_GREEN, DOCTEST_RED, FEATURES_121A } from './fixtures.js';

function read(lines: readonly string[], profile = NEMOTRON_H, times?: number[]) {
  const r = createDriverReader(profile);
  lines.forEach((l, i) => r.push(l, times?.[i]));
  return r.report();
}

describe('nemotron-h profile', () => {
  it('reads the seeds A3 gate: load, rows, block, verdict', () => {
    const r = read(A3_PASS);
    expect(r.banner).toBe('libvllm 0.0.3+cuda (ABI 21, header 21)');
    expect(r.load).toMatchObject({ loadS: 254.5, line: 2, tS: null });
    expect(r.prompts.map((p) => [p.prompt, p.promptTokens, p.compared, p.matched, p.wallS, p.short, p.block])).toEqual([
      [0, 5, 32, 32, 335.87, false, 0],
      [1, 8, 32, 32, 323.42, false, 0],
      [2, 13, 32, 32, 322.71, false, 0],
    ]);
    expect(r.tokenMatch).toHaveLength(1);
    expect(r.tokenMatch[0]).toMatchObject({ matched: 96, compared: 96, prompts: 3, fullRows: 3, shortRows: 0, mode: 'decode' });
    expect(r.tokenMatch[0]?.rowTotals).toMatchObject({ rows: 3, compared: 96, matched: 96, shortRows: 0 });
    expect(r.verdicts.map((v) => v.kind)).toEqual(['STRICT PASS']);
    expect(r.referenceTier.count).toBe(0);
  });

  it('older builds omit mode=: the block reads mode null', () => {
    const r = read(['[nemotron-h] TOKEN MATCH: 93/96 over 3 prompt(s) (full rows=3, short rows=0)', '[nemotron-h] DIVERGENCE']);
    expect(r.tokenMatch[0]).toMatchObject({ matched: 93, compared: 96, mode: null });
    expect(r.verdicts[0]).toMatchObject({ kind: 'DIVERGENCE', detail: '' });
  });

  it('--both-modes: two blocks kept apart, rows assigned to their own block, counters reset per mode', () => {
    const r = read([
      '[nemotron-h] engine loaded in 10.0s',
      '[nemotron-h] prompt 0: prompt_tokens=5 generated=8 golden_width=8 compared=8 matched=1 wall=2.0s',
      '[nemotron-h]   got: 1 2 3',
      '[nemotron-h]   exp: 1 9 9',
      '[nemotron-h] TOKEN MATCH: 1/8 over 1 prompt(s) (full rows=1, short rows=0, mode=decode)',
      '[nemotron-h] prompt 0: prompt_tokens=5 generated=8 golden_width=8 compared=8 matched=8 wall=3.0s',
      '[nemotron-h] TOKEN MATCH: 8/8 over 1 prompt(s) (full rows=1, short rows=0, mode=fresh-prefill)',
    ], NEMOTRON_H, [0, 1, 2, 3, 4, 5, 6]);
    expect(r.tokenMatch.map((b) => [b.mode, b.matched, b.compared, b.rowTotals.matched, b.startS])).toEqual([
      ['decode', 1, 8, 1, 0],
      ['fresh-prefill', 8, 8, 8, 4],
    ]);
    expect(r.prompts.map((p) => p.block)).toEqual([0, 1]);
    expect(r.prompts[0]).toMatchObject({ got: '1 2 3', exp: '1 9 9' });
    expect(r.prompts[1]).toMatchObject({ got: null, exp: null });
  });

  it('SHORT rows, REFUSING and SHORT verdicts', () => {
    const r = read([
      // The suffix exactly as vllm.cpp's nemotron-h-gen prints it (examples/nemotron_h_gen/main.cpp).
      '[nemotron-h] prompt 0: prompt_tokens=5 generated=20 golden_width=32 compared=20 matched=20 wall=1.5s  <-- SHORT RUN, not a full row',
      '[nemotron-h] prompt 1: prompt_tokens=5 generated=20 golden_width=32 compared=20 matched=20 wall=1.5s <-- SHORT RUN',
      '[nemotron-h] prompt 2: prompt_tokens=5 generated=32 golden_width=32 compared=32 matched=32 wall=1.5s',
      '[nemotron-h] TOKEN MATCH: 72/72 over 3 prompt(s) (full rows=1, short rows=2, mode=decode)',
      '[nemotron-h] SHORT: 1 row(s) generated fewer tokens than the golden width',
      '[nemotron-h] REFUSING: golden width 32 exceeds max_new_tokens 16',
    ]);
    expect(r.prompts.map((p) => [p.prompt, p.short, p.compared])).toEqual([[0, true, 20], [1, true, 20], [2, false, 32]]);
    expect(r.tokenMatch[0]?.rowTotals.shortRows).toBe(2);
    expect(r.verdicts).toMatchObject([
      { kind: 'SHORT', detail: '1 row(s) generated fewer tokens than the golden width' },
      { kind: 'REFUSING', detail: 'golden width 32 exceeds max_new_tokens 16' },
    ]);
  });

  it('counts reference-tier lines in either spelling, and the nh-ref banner with op and device', () => {
    const r = read(
      [
        '[nh-ref reference-tier] op=mamba_scan device=cpu has NO native kernel; running the PORTABLE fallback',
        'something about the reference tier',
        '[nh-ref] engine loaded in 0.5s',
        'Reference-Tier mentioned again',
      ],
      NH_REF,
    );
    expect(r.referenceTier.count).toBe(3);
    expect(r.referenceTier.lines[0]).toMatchObject({ op: 'mamba_scan', device: 'cpu', line: 1 });
    expect(r.load?.loadS).toBe(0.5);
  });

  it('ARM counters are read by field name, whatever their order', () => {
    const reordered = 'ARM step gathers=0 T=1 scatters=0 nd=1 np=0 chunk_scan_calls=0 state_update_rows=23 conv_update_rows=23 conv_fwd_calls=0';
    const r = read([ARM_PREFILL, ARM_DECODE, ARM_DECODE, reordered, '[nemotron-h] ARM step T=1 nd=1 np=0 init=[1]']);
    expect(r.counters.total).toBe(5);
    expect(r.counters.records[0]?.fields).toMatchObject({ T: 5, nd: 0, np: 1, chunk_scan_calls: 23, gathers: 23 });
    expect(r.counters.records[3]?.fields.nd).toBe(1);
    expect(r.counters.records[3]?.fields.state_update_rows).toBe(23);
    expect(r.counters.records[4]?.fields.init).toBe('[1]');
    // identical counters group together regardless of field order
    expect(r.counters.groups.map((g) => g.count)).toEqual([1, 3, 1]);
  });

  it('ARM counters behind another prefix are read, not dropped; a word that merely contains it is not', () => {
    const r = read(['[NH-DIAG] ARM step T=1 nd=1 gathers=0', '2026-12-01T09:00:00Z ARM step T=2 nd=0', 'FARM step T=9']);
    expect(r.counters.total).toBe(2);
    expect(r.counters.records.map((c) => c.fields.T)).toEqual([1, 2]);
  });

  it('a terse TOKEN MATCH line (no parenthesis) is a block with unknown row counts, not "no TOKEN MATCH line"', () => {
    const r = read(['[nemotron-h] engine loaded in 1.0s', '[nemotron-h] TOKEN MATCH: 0/0 over 3 prompt(s)']);
    expect(r.tokenMatch).toHaveLength(1);
    expect(r.tokenMatch[0]).toMatchObject({ matched: 0, compared: 0, prompts: 3, fullRows: null, shortRows: null, mode: null });
    // a line cut inside its parenthesis is not a block
    expect(read(['[nemotron-h] TOKEN MATCH: 96/96 over 3 prompt(s) (full rows=3, sh']).tokenMatch).toHaveLength(0);
  });

  it('vllm.cpp prints its arm trace under [NH-DIAG] (scripts/nemotron-h-a2d1-gpu-gate.sh): read, by field', () => {
    const r = read(['[NH-DIAG] ARM step T=1 nd=1 np=0  state_update_rows=23 chunk_scan_calls=0']);
    expect(r.counters.total).toBe(1);
    expect(r.counters.records[0]?.fields).toMatchObject({ T: 1, nd: 1, np: 0, state_update_rows: 23, chunk_scan_calls: 0 });
  });

  it('prefix matters: another engine’s load line is not this engine’s', () => {
    expect(read(['[nh-ref] engine loaded in 3s']).load).toBeNull();
    expect(read(['[nh-ref] engine loaded in 3s'], NH_REF).load?.loadS).toBe(3);
  });

  it('a garbled load figure is kept as NaN (refused later), not dropped', () => {
    expect(read(['[nemotron-h] engine loaded in nans']).load?.loadS).toBeNaN();
  });

  it('records first and last arrival times and strips CR', () => {
    const r = read(['a\r', '[nemotron-h] engine loaded in 2.0s\r', 'c'], NEMOTRON_H, [5, 6, 9]);
    expect([r.firstLineS, r.lastLineS, r.lines]).toEqual([5, 9, 3]);
    expect(r.load).toMatchObject({ loadS: 2, tS: 6 });
  });

  it('report() is a snapshot; the reader keeps going after it', () => {
    const reader = createDriverReader(NEMOTRON_H);
    reader.push(A3_PASS[1]!);
    const first = reader.report();
    reader.push(A3_PASS[6]!);
    expect(first.tokenMatch).toHaveLength(0);
    expect(reader.report().tokenMatch).toHaveLength(1);
  });

  it('rows after the last block stay open (a truncated log)', () => {
    const r = read(A3_PASS.slice(0, 4));
    expect(r.tokenMatch).toHaveLength(0);
    expect(r.openRows).toMatchObject({ rows: 2, compared: 64 });
    expect(r.prompts.every((p) => p.block === -1)).toBe(true);
  });
});

describe('feature table', () => {
  it('parses the seeds CMake lines', () => {
    const t = parseFeatureTable(FEATURES_121A);
    expect(t.targetArchs).toEqual(['121a']);
    expect(t.cells).toHaveLength(6);
    expect(t.cells[0]).toMatchObject({ family: 'CUDA', cell: 'fp4-mma', state: 'ENABLED', archs: ['121a'], reason: null });
    expect(t.cells[5]).toMatchObject({ cell: 'cutlass-nvfp4-sm100', state: 'DISABLED', archs: ['121a'], reason: 'no requested arch in [121a] provides it' });
  });

  it('parses nh-ref feature lines and a DISABLED reason without archs', () => {
    const t = parseFeatureTable('--   nh-ref feature mamba-gemv: ENABLED for [90]\n--   nh-ref feature mamba-scan: DISABLED (NH_REF_CUDA=OFF)');
    expect(t.cells).toMatchObject([
      { family: 'nh-ref', cell: 'mamba-gemv', state: 'ENABLED', archs: ['90'] },
      { family: 'nh-ref', cell: 'mamba-scan', state: 'DISABLED', archs: [], reason: 'NH_REF_CUDA=OFF' },
    ]);
  });

  it('required cells: DEGRADED_BUILD names each missing cell and why', () => {
    const req = ['fp4-mma', 'cutlass-nvfp4', 'cutlass-fp8', 'marlin-nvfp4', 'fa2'];
    expect(checkRequiredCells(parseFeatureTable(FEATURES_121A), req, '121a')).toMatchObject({ ok: true, reason: null });
    const thor = parseFeatureTable(['--   CUDA feature marlin-nvfp4: ENABLED for [110]', '--   CUDA feature fa2: DISABLED (no requested arch in [110] provides it)']);
    const c = checkRequiredCells(thor, req, '110');
    expect(c.ok).toBe(false);
    expect(c.reason).toBe('DEGRADED_BUILD');
    expect(c.missing.map((m) => m.cell)).toEqual(['fp4-mma', 'cutlass-nvfp4', 'cutlass-fp8', 'fa2']);
    expect(c.message).toContain('fa2 DISABLED (no requested arch in [110] provides it)');
    expect(c.message).toContain('fp4-mma absent from the feature table');
    const wrongArch = checkRequiredCells(parseFeatureTable(FEATURES_121A), ['fa2'], '90');
    expect(wrongArch.missing[0]?.why).toBe('ENABLED for [121a], not for 90');
  });
});

describe('doctest summaries', () => {
  it('parses the seeds RED and GREEN summaries', () => {
    expect(parseDoctestSummary(DOCTEST_RED)).toMatchObject({ cases: { total: 3, passed: 2, failed: 1, skipped: 0 }, assertions: { total: 47, passed: 42, failed: 5 }, status: 'FAILURE', threw: 0 });
    expect(judgeDoctest(parseDoctestSummary(DOCTEST_RED)).verdict).toBe('RED');
    expect(judgeDoctest(parseDoctestSummary(DOCTEST_GREEN))).toMatchObject({ verdict: 'GREEN', reason: null });
  });

  it('a thrown case runs no assertions: all-passed assertions beside failed cases is RED', () => {
    const text = [
      'TEST CASE:  paged forward',
      'ERROR: test case THREW exception: No valid attention backend for device type 0',
      '[doctest] test cases: 13 |  2 passed | 11 failed | 0 skipped',
      '[doctest] assertions: 18 | 18 passed |  0 failed |',
      '[doctest] Status: FAILURE!',
    ].join('\n');
    const s = parseDoctestSummary(text);
    expect(s?.threw).toBe(1);
    const j = judgeDoctest(s);
    expect(j.verdict).toBe('RED');
    expect(j.message).toContain('a thrown case runs no assertions');
  });

  it('failed cases are RED even when assertions and the status line say nothing (cut-off output)', () => {
    const s = parseDoctestSummary('[doctest] test cases: 13 | 2 passed | 11 failed | 0 skipped\n[doctest] assertions: 18 | 18 passed | 0 failed |');
    expect(s?.status).toBeNull();
    expect(judgeDoctest(s).verdict).toBe('RED');
  });

  it('zero selected cases is REFUSED (NO_CASES), not a pass', () => {
    const s = parseDoctestSummary('[doctest] test cases: 0 | 0 passed | 0 failed | 3 skipped\n[doctest] assertions: 0 | 0 passed | 0 failed |\n[doctest] Status: SUCCESS!');
    expect(judgeDoctest(s)).toMatchObject({ verdict: 'REFUSED', reason: 'NO_CASES' });
  });

  it('a GPU run whose assertions equal the CPU-only count is REFUSED (GPU_SKIPPED)', () => {
    const s = parseDoctestSummary('[doctest] test cases: 12 | 12 passed | 0 failed | 0 skipped\n[doctest] assertions: 2527 | 2527 passed | 0 failed |\n[doctest] Status: SUCCESS!');
    expect(judgeDoctest(s, { cpuOnlyAssertions: 2527, expectGpu: true })).toMatchObject({ verdict: 'REFUSED', reason: 'GPU_SKIPPED' });
    expect(judgeDoctest(s, { cpuOnlyAssertions: 2527, expectGpu: false }).verdict).toBe('GREEN');
    expect(judgeDoctest(s, { cpuOnlyAssertions: 4, expectGpu: true }).verdict).toBe('GREEN');
  });

  it('no summary at all (a crash) is REFUSED, several runs give several summaries', () => {
    expect(parseDoctestSummary('Segmentation fault')).toBeNull();
    expect(judgeDoctest(null)).toMatchObject({ verdict: 'REFUSED', reason: 'CRASHED' });
    const all = parseDoctestSummaries([...DOCTEST_RED, ...DOCTEST_GREEN]);
    expect(all.map((s) => s.status)).toEqual(['FAILURE', 'SUCCESS']);
    expect(parseDoctestSummary([...DOCTEST_RED, ...DOCTEST_GREEN])?.status).toBe('SUCCESS');
  });

  it('a summary cut off before its Status line is still read; the next one starts fresh', () => {
    const all = parseDoctestSummaries([DOCTEST_RED[0]!, DOCTEST_RED[1]!, ...DOCTEST_GREEN]);
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ status: null, cases: { failed: 1 } });
    expect(judgeDoctest(all[0]!).verdict).toBe('RED');
  });
});

describe('registry and profile files', () => {
  it('lists built-ins and names them in the unknown-profile error', () => {
    expect(listProfiles()).toEqual(['nemotron-h', 'nh-ref']);
    expect(getProfile('nh-ref').prefix).toBe('[nh-ref]');
    try {
      getProfile('llama');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(NhGateError);
      expect((e as NhGateError).code).toBe('UNKNOWN_PROFILE');
      expect((e as NhGateError).message).toContain('nemotron-h, nh-ref');
    }
  });

  it('a profile JSON file declares another engine without code', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nhg-prof-'));
    const file = join(dir, 'toy.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'toy',
        prefix: '<toy>',
        patterns: [
          { role: 'load', regex: '^{prefix} ready after (?<loadS>[0-9.]+) seconds', captures: { loadS: 'float' } },
          { role: 'tokenMatch', regex: '^{prefix} tokens (?<matched>\\d+) of (?<compared>\\d+)', captures: { matched: 'int', compared: 'int' } },
        ],
      }),
    );
    const p = resolveProfile(file);
    const r = read(['<toy> ready after 4.5 seconds', '<toy> tokens 7 of 9'], p);
    expect(r.load?.loadS).toBe(4.5);
    expect(r.tokenMatch[0]).toMatchObject({ matched: 7, compared: 9, mode: null });
  });

  it('a bad profile file is a BAD_CONFIG naming the file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nhg-prof-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'bad', prefix: 'x', patterns: [{ role: 'nope', regex: 'a' }] }));
    expect(() => resolveProfile(bad)).toThrow(/bad\.json: patterns\.0\.role:/);
    const badRe = join(dir, 'badre.json');
    writeFileSync(badRe, JSON.stringify({ name: 'bad', prefix: 'x', patterns: [{ role: 'load', regex: '(' }] }));
    expect(() => resolveProfile(badRe)).toThrow(/does not compile/);
    expect(() => resolveProfile(join(dir, 'missing.json'))).toThrow(/cannot read profile/);
    writeFileSync(join(dir, 'notjson.json'), '{');
    expect(() => resolveProfile(join(dir, 'notjson.json'))).toThrow(/not valid JSON: the text ends too soon: a '}' was expected \(line 1, column 2\)/);
  });
});

describe('small parsers', () => {
  it('timed lines round-trip; plain lines have no time', () => {
    expect(parseTimedLine(formatTimedLine(12.5, '[nemotron-h] STRICT PASS'))).toEqual({ tS: 12.5, text: '[nemotron-h] STRICT PASS' });
    expect(parseTimedLine('12\tnot a time')).toEqual({ tS: undefined, text: '12\tnot a time' });
  });

  it('kv fields and typed captures', () => {
    expect(parseKv(' a=1 b=x c=-2.5 d= =3 e=1e3 junk ')).toEqual({ a: 1, b: 'x', c: -2.5, d: '', e: 1000 });
    expect(typedCapture('int', '12')).toBe(12);
    expect(typedCapture('int', '1.5')).toBeNaN();
    expect(typedCapture('float', 'abc')).toBeNaN();
    expect(typedCapture('string', 'abc')).toBe('abc');
    expect(typedCapture('float', undefined)).toBeUndefined();
  });
});

describe('edges pinned for mutation testing', () => {
  it('typed captures: anchored numbers only; an unknown capture type is a programming error', () => {
    expect(typedCapture('float', '.5')).toBe(0.5);
    expect(typedCapture('float', '1e3')).toBe(1000);
    expect(typedCapture('float', '-2.5E-1')).toBe(-0.25);
    for (const bad of ['1.5x', 'x1.5', '1e', '1e+', '.', '', ' 1', '1 ', '1.5.2', '.e1']) expect(typedCapture('float', bad), bad).toBeNaN();
    for (const bad of ['1 ', ' 1', '+', '1.0', 'a1']) expect(typedCapture('int', bad), bad).toBeNaN();
    expect(typedCapture('int', '+7')).toBe(7);
    expect(typedCapture('int', '-7')).toBe(-7);
    expect(() => typedCapture('bogus' as never, 'x')).toThrow(/unknown capture type 'bogus'/);
    expect(parseKv('a=1 b=2.5e1 c=x d=1e')).toEqual({ a: 1, b: 25, c: 'x', d: '1e' });
  });

  it('splitArchs drops empty pieces; timed lines need 3 to 9 decimals and a digit before the dot', () => {
    expect(splitArchs(' 90, 121a ;110 ')).toEqual(['90', '121a', '110']);
    expect(splitArchs(null)).toEqual([]);
    expect(splitArchs('')).toEqual([]);
    expect(parseTimedLine('1.123\tx').tS).toBe(1.123);
    expect(parseTimedLine('1.123456789\tx').tS).toBe(1.123456789);
    expect(parseTimedLine('12345.123456\tx')).toEqual({ tS: 12345.123456, text: 'x' });
    for (const plain of ['1.12\tx', '1.1234567890\tx', '.123\tx', '1a.123\tx', '1.12a\tx', '123\tx', 'x\t1.123', '1.123 x', '1.1.23\tx']) {
      expect(parseTimedLine(plain), plain).toEqual({ tS: undefined, text: plain });
    }
  });

  it('arrival times: an untimed line after timed ones keeps the last time', () => {
    const r = createDriverReader(NEMOTRON_H);
    r.push('a', 5);
    r.push('b');
    r.push('c', 7);
    r.push('d');
    const rep = r.report();
    expect([rep.firstLineS, rep.lastLineS]).toEqual([5, 7]);
  });

  it('doctest judgement messages and defensive reds', () => {
    const sum = (cases: [number, number, number, number], asserts: [number, number, number] | null, status: string | null, threw = 0) => ({
      cases: { total: cases[0], passed: cases[1], failed: cases[2], skipped: cases[3] },
      assertions: asserts ? { total: asserts[0], passed: asserts[1], failed: asserts[2] } : null,
      status,
      threw,
      line: 1,
    });
    expect(judgeDoctest(sum([3, 2, 1, 0], [47, 42, 5], 'FAILURE'))).toEqual({ verdict: 'RED', reason: null, message: '1 of 3 cases failed, 0 threw; 47 assertions, 5 failed' });
    expect(judgeDoctest(sum([13, 2, 11, 0], [18, 18, 0], 'FAILURE', 1)).message).toBe('11 of 13 cases failed, 1 threw; 18 assertions, 0 failed (assertions read all-passed beside failed cases: a thrown case runs no assertions)');
    expect(judgeDoctest(sum([3, 3, 0, 0], [5, 4, 1], null)).verdict).toBe('RED');
    expect(judgeDoctest(sum([3, 3, 0, 0], [5, 5, 0], 'FAILURE')).verdict).toBe('RED');
    expect(judgeDoctest(sum([3, 3, 0, 0], [5, 5, 0], null, 1)).verdict).toBe('RED');
    expect(judgeDoctest(sum([3, 3, 0, 0], null, 'SUCCESS'))).toEqual({ verdict: 'GREEN', reason: null, message: '3 of 3 cases passed; no assertion line' });
    expect(judgeDoctest(sum([2, 0, 0, 2], [0, 0, 0], 'SUCCESS'))).toEqual({ verdict: 'REFUSED', reason: 'NO_CASES', message: '2 cases selected (2 skipped) — a suite that ran nothing is not a pass' });
    expect(judgeDoctest(sum([3, 3, 0, 0], [4, 4, 0], 'SUCCESS'), { cpuOnlyAssertions: 4, expectGpu: true })).toEqual({
      verdict: 'REFUSED',
      reason: 'GPU_SKIPPED',
      message: '4 assertions — exactly the CPU-only count: the GPU cases took their skip path, this is not a GPU result',
    });
    expect(judgeDoctest(sum([3, 3, 0, 0], [4, 4, 0], 'SUCCESS'), { expectGpu: true }).verdict).toBe('GREEN');
    expect(judgeDoctest({ cases: null, assertions: null, status: 'SUCCESS', threw: 0, line: 1 })).toEqual({ verdict: 'REFUSED', reason: 'CRASHED', message: 'no doctest summary was printed — the suite did not finish' });
  });

  it('required-cell messages; an ENABLED cell with no arch list counts for any arch', () => {
    const t = parseFeatureTable(['--   CUDA feature a: ENABLED', '--   CUDA feature b: DISABLED', '--   CUDA feature c: ENABLED for [90]']);
    expect(checkRequiredCells(t, ['a'], '121a')).toEqual({ ok: true, reason: null, missing: [], message: 'all 1 required cells ENABLED for 121a' });
    expect(checkRequiredCells(t, ['a', 'b', 'c', 'd'], '121a')).toEqual({
      ok: false,
      reason: 'DEGRADED_BUILD',
      missing: [
        { cell: 'b', why: 'DISABLED' },
        { cell: 'c', why: 'ENABLED for [90], not for 121a' },
        { cell: 'd', why: 'absent from the feature table' },
      ],
      message: 'degraded build for 121a: b DISABLED; c ENABLED for [90], not for 121a; d absent from the feature table',
    });
    const multi = parseFeatureTable(['--   CUDA feature c: ENABLED for [90, 121a]']);
    expect(checkRequiredCells(multi, ['c'], '110').missing[0]?.why).toBe('ENABLED for [90, 121a], not for 110');
  });

  it('built-in profiles describe themselves; patterns are fresh per access', () => {
    expect(NEMOTRON_H.description).toMatch(/nemotron-h-gen/);
    expect(NH_REF.description).toMatch(/reference engine/);
    expect(NEMOTRON_H.patterns).not.toBe(NEMOTRON_H.patterns);
    expect(resolveProfile('nemotron-h')).toBe(NEMOTRON_H);
  });

  it('profile files: path detection, relative to root, description kept, defaults for absent captures', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nhg-prof-'));
    writeFileSync(
      join(dir, 'p.json'),
      JSON.stringify({
        name: 'min',
        description: 'minimal',
        prefix: '~',
        patterns: [
          { role: 'prompt', regex: '^~ row compared=(?<compared>\\d+)', captures: { compared: 'int' } },
          { role: 'counters', regex: '^~ ctr (?<fields>.*)$', captures: { fields: 'kv' } },
          { role: 'feature', regex: '^~ cell (?<state>ENABLED|DISABLED)$', captures: { state: 'string' } },
        ],
      }),
    );
    const p = resolveProfile('p.json', dir);
    expect(p.description).toBe('minimal');
    const r = createDriverReader(p);
    r.push('~ row compared=3');
    r.push('~ ctr a=1');
    r.push('~ cell ENABLED');
    const rep = r.report();
    expect(rep.prompts[0]).toMatchObject({ prompt: -1, compared: 3, matched: null, wallS: null, short: false });
    expect(rep.counters.records[0]).toMatchObject({ label: 'counters', fields: { a: 1 } });
    expect(rep.features.cells[0]).toMatchObject({ family: '', cell: '', state: 'ENABLED', archs: [] });
    writeFileSync(join(dir, 'nodesc.json'), JSON.stringify({ name: 'n', prefix: 'x', patterns: [{ role: 'load', regex: 'a' }] }));
    const nd = resolveProfile(join(dir, 'nodesc.json'));
    expect('description' in nd).toBe(false);
    expect(nd.patterns[0]?.captures).toEqual({});
  });

  it('profile schema: flags, empty regex, empty hints and unknown roles are refused by field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nhg-prof-'));
    const check = (pattern: Record<string, unknown>, field: RegExp) => {
      writeFileSync(join(dir, 'x.json'), JSON.stringify({ name: 'x', prefix: 'x', patterns: [{ role: 'load', regex: 'a', ...pattern }] }));
      expect(() => resolveProfile(join(dir, 'x.json'))).toThrow(field);
    };
    check({ flags: 'g' }, /patterns\.0\.flags: only the flags i, m, s, u/);
    check({ regex: '' }, /patterns\.0\.regex: /);
    check({ hint: '' }, /patterns\.0\.hint: /);
    check({ hint: [] }, /patterns\.0\.hint: /);
    check({ hint: [''] }, /patterns\.0\.hint/);
    check({ captures: { a: 'date' } }, /patterns\.0\.captures\.a: /);
    check({ exclusive: 'no' }, /patterns\.0\.exclusive: /);
    writeFileSync(join(dir, 'y.json'), JSON.stringify({ name: '', prefix: 'x', patterns: [] }));
    expect(() => resolveProfile(join(dir, 'y.json'))).toThrow(/y\.json: name: [\s\S]*y\.json: patterns: /);
    writeFileSync(join(dir, 'z.json'), JSON.stringify({ schemaVersion: 2, name: 'z', prefix: 'x', patterns: [{ role: 'load', regex: 'a', flags: 'im', hint: ['a', 'b'] }] }));
    expect(() => resolveProfile(join(dir, 'z.json'))).toThrow(/z\.json: schemaVersion: /);
  });

  it('unknown profile and unreadable file errors say what to do', () => {
    try {
      resolveProfile('llama');
      expect.unreachable();
    } catch (e) {
      const err = e as NhGateError;
      expect(err.message).toBe("no output profile named 'llama'; known: nemotron-h, nh-ref");
      expect(err.hint).toBe('pass --profile with one of those, or a path to a profile JSON file');
    }
    try {
      resolveProfile('dir/missing.json', '/nonexistent');
      expect.unreachable();
    } catch (e) {
      const err = e as NhGateError;
      expect(err.code).toBe('UNREADABLE_FILE');
      expect(err.message).toBe('/nonexistent/dir/missing.json: cannot read profile (ENOENT)');
      expect(err.hint).toBe('check the path, or use a built-in profile: nemotron-h, nh-ref');
    }
  });
});

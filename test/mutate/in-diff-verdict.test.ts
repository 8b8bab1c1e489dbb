import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MutationSchema } from '../../src/config/mutations.js';
import { cacheable, cacheKey, readCached, writeCached } from '../../src/mutate/cache.js';
import type { MutantResult } from '../../src/mutate/types.js';
import { generatedClass, judgeMutant, type Judgement } from '../../src/mutate/verdict.js';
import { toGithubAnnotations } from '../../src/mutate/report/in-diff.js';

// The pure rules that only generated rows have: their exit classes, the cache key, the annotations.
const m = MutationSchema.parse({ id: 'a.cpp-L3-relational-0123abcd', file: 'e/a.cpp', anchor: 'x < y', replacement: 'x <= y', why: 'w', suite: 's', expect: 'caught' });
const j = (verdict: Judgement['verdict'], reason: Judgement['reason'] = null): Judgement => ({ verdict, reason, detail: 'd', mustFailCaseFailed: null });

describe('generated rows: exit classes', () => {
  it('a survivor fails, a catch passes, UNVIABLE and NOT_REBUILT are excluded, other VOIDs and TIMEOUT are void', () => {
    expect(generatedClass(j('CAUGHT'))).toEqual({ exitClass: 'passed', excluded: false });
    expect(generatedClass(j('SURVIVED'))).toEqual({ exitClass: 'failed', excluded: false });
    expect(generatedClass(j('VOID', 'UNVIABLE'))).toEqual({ exitClass: 'passed', excluded: true });
    expect(generatedClass(j('VOID', 'NOT_REBUILT'))).toEqual({ exitClass: 'passed', excluded: true });
    expect(generatedClass(j('VOID', 'NOT_RESTORED'))).toEqual({ exitClass: 'void', excluded: false });
    expect(generatedClass(j('VOID', 'AMBIGUOUS'))).toEqual({ exitClass: 'void', excluded: false });
    expect(generatedClass(j('TIMEOUT'))).toEqual({ exitClass: 'void', excluded: false });
  });

  it('UNVIABLE names the compiler\'s first error', () => {
    const r = judgeMutant({ compileExit: 1, errorCount: 2, firstError: 'a.cpp:3:7: error: expected expression', binarySha: null, baselineSha: 'b', suite: null, restoreSha: 'b', interrupted: false }, m);
    expect(r.detail).toBe('compile failed (exit 1, 2 error lines): a.cpp:3:7: error: expected expression');
  });
});

describe('result cache', () => {
  it('keys on the mutant, the file sha and the baseline binary sha; any change is a new key', () => {
    const k = cacheKey(m, 'f1', 'b1');
    expect(cacheKey(m, 'f1', 'b1')).toBe(k);
    expect(cacheKey(m, 'f2', 'b1')).not.toBe(k);
    expect(cacheKey(m, 'f1', 'b2')).not.toBe(k);
    expect(cacheKey({ ...m, replacement: 'x > y' }, 'f1', 'b1')).not.toBe(k);
    expect(cacheKey({ ...m, filter: 'MoE*' }, 'f1', 'b1')).not.toBe(k);
  });

  it('stores only proven verdicts and reads back only the same mutant id', () => {
    const row = { id: m.id, verdict: 'CAUGHT', reason: null } as unknown as MutantResult;
    expect(cacheable(row)).toBe(true);
    expect(cacheable({ ...row, verdict: 'VOID', reason: 'INTERRUPTED' })).toBe(false);
    expect(cacheable({ ...row, verdict: 'VOID', reason: 'NOT_RESTORED' })).toBe(false);
    expect(cacheable({ ...row, verdict: 'VOID', reason: 'UNVIABLE' })).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'nhg-cache-'));
    writeCached(dir, 'k1', row);
    expect(readCached(dir, 'k1', m.id)?.verdict).toBe('CAUGHT');
    expect(readCached(dir, 'k1', 'other-id')).toBeNull();
    expect(readCached(dir, 'missing', m.id)).toBeNull();
  });
});

describe('--format github', () => {
  it('escapes properties and data as GitHub workflow commands require', () => {
    const origin = { operator: 'relational' as const, what: '< → <=', line: 3, span: { start: { line: 3, column: 5 }, end: { line: 3, column: 6 }, offset: 9 }, before: '  if (x < y) a, b;', after: '  if (x <= y) a, b;', edit: '<=', contextLines: 0 };
    const row = { id: m.id, mutation: { ...m, file: 'e/a,b:c.cpp' }, verdict: 'SURVIVED', reason: null, origin, exitClass: 'failed', detail: '100% GREEN' } as unknown as MutantResult;
    const out = toGithubAnnotations([row]).split('\n');
    expect(out[0]).toBe('::warning file=e/a%2Cb%3Ac.cpp,line=3,col=5,title=SURVIVED mutant (relational)::< → <=: s stayed GREEN.%0A- if (x < y) a, b;%0A+ if (x <= y) a, b;');
    expect(out[1]).toMatch(/^::notice title=nh-gate mutate::generated rows: 1: 0 caught, 1 survived/);
  });
});

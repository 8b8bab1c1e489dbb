import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MutationSchema } from '../../../src/config/mutations.js';
import { renderSurvivors } from '../../../src/mutate/report/in-diff.js';
import { DEFAULT_FILTER_ARGV } from '../../../src/mutate/suite/invoke.js';
import type { MutantResult } from '../../../src/mutate/types.js';
import { REPO } from '../helpers.js';

// docs/mutate.md's suite, sanitizer and llama.cpp examples against the shipped recipes and real output.
const doc = readFileSync(join(REPO, 'docs', 'mutate.md'), 'utf8');
const block = (tag: string): unknown => JSON.parse(new RegExp(`\`\`\`json ${tag}\\n([\\s\\S]*?)\`\`\``).exec(doc)![1]!);
const recipe = (name: string): { suites: { name: string }[]; sanitizer?: unknown } => JSON.parse(readFileSync(join(REPO, 'recipes', `${name}.json`), 'utf8'));

describe('docs/mutate.md: suites, sanitizer, llama.cpp', () => {
  it('the suite example is the llama-cpp recipe\'s suite, and the sanitizer example nh-ref\'s', () => {
    expect(block('suite')).toEqual(recipe('llama-cpp').suites.find((s) => s.name === 'llama-sampling'));
    expect(block('sanitizer')).toEqual(recipe('nh-ref').sanitizer);
  });

  it('the filter table is each kind\'s default filter argv', () => {
    for (const [kind, argv] of Object.entries(DEFAULT_FILTER_ARGV)) {
      expect(doc, kind).toContain(`| ${kind} | \`${argv.join(' ')}\` |`);
    }
  });

  it('the quoted sanitizer heading is what the report prints for one such row', () => {
    const quoted = /^ {4}(lines only a sanitizer protects .*)$/m.exec(doc)![1]!;
    const mutation = MutationSchema.parse({ id: 'g', file: 'e/m.cpp', anchor: 'a', replacement: 'b', why: 'w', suite: 's', expect: 'caught' });
    const row = {
      id: 'g', mutation, verdict: 'CAUGHT BY SANITIZER', sanitizer: { finding: 'ERROR: AddressSanitizer: heap-buffer-overflow' },
      origin: { operator: 'relational', what: '< → <=', line: 3, before: '', after: '' },
    } as unknown as MutantResult;
    expect(renderSurvivors([row]).split('\n')).toContain(quoted);
  });

  it('the llama.cpp figures are in the shape scripts/ci/mutate-llama.sh prints', () => {
    const script = readFileSync(join(REPO, 'scripts', 'ci', 'mutate-llama.sh'), 'utf8');
    expect(script).toContain('console.log(`mutate llama.cpp (');
    expect(doc).toMatch(/^ {4}mutate llama\.cpp \(llama-sampler\.cpp via test-sampling\): \d+ mutants, \d+ caught, \d+ survivors at lines [\d, ]+, \d+ unviable, \d+ equivalent by binary, \d+ other VOID; [\d.]+ min \(2 trees\)$/m);
  });
});

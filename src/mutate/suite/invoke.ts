import type { RecipeSuite, SuiteFormat } from '../../config/recipe.js';

// How each framework selects cases on its command line; a suite's filterArgv overrides it. A table row's
// or route's filter is written in the suite's own syntax: doctest and GoogleTest wildcards, a Catch2 test
// spec, a CTest regular expression.
export const DEFAULT_FILTER_ARGV: Record<SuiteFormat, readonly string[]> = {
  doctest: ['--test-case={filter}'],
  gtest: ['--gtest_filter={filter}'],
  catch2: ['{filter}'],
  ctest: ['-R', '{filter}'],
};

// What a suite call needs from the recipe's suite.
export type SuiteCallable = Pick<RecipeSuite, 'name'> & Partial<Pick<RecipeSuite, 'kind' | 'filterArgv'>>;

// The argv a filter adds: the suite's own filterArgv, else its kind's (doctest when the kind is told by
// its output: the form every suite used before kinds were declared).
export function filterArgvOf(suite: SuiteCallable): readonly string[] {
  return suite.filterArgv ?? DEFAULT_FILTER_ARGV[suite.kind ?? 'doctest'];
}

// A suite and its filter as a reader writes the call, e.g. `nh-ref-tests --test-case=MoE*` or
// `llama-tests -R ^test-sampling$`: the words every report uses for "the suite that judged this row".
export function suiteCall(suite: SuiteCallable, filter: string | undefined): string {
  if (filter === undefined) return suite.name;
  return [suite.name, ...filterArgvOf(suite).map((a) => a.replaceAll('{filter}', filter))].join(' ');
}

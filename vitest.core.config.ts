import { defineConfig } from 'vitest/config';

// The core's own tests, minus those that spawn the built binary: what StrykerJS runs against each mutant.
export default defineConfig({
  test: {
    // The suite readers' and the mutation verdicts' pure tests (over captured real suite output) too.
    include: ['test/core/**/*.test.ts', 'test/mutate/suites/{readers,judge,targets,edges}.test.ts', 'test/mutate/verdict.test.ts'],
    exclude: ['test/core/cli.test.ts', 'test/core/schemas.test.ts', 'test/core/config.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { NHG_PROPERTY_RUNS: '60' },
  },
});

import { defineConfig } from 'vitest/config';

// The core's own tests, minus those that spawn the built binary or read the shipped goldens (not in the sandbox): what StrykerJS runs against each mutant.
export default defineConfig({
  test: {
    // Plus the pure judgements of device mutants (src/mutate/device.ts), which are in Stryker's scope too.
    include: ['test/core/**/*.test.ts', 'test/mutate/device.test.ts'],
    exclude: ['test/core/cli.test.ts', 'test/core/schemas.test.ts', 'test/core/config.test.ts', 'test/core/config-refs.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { NHG_PROPERTY_RUNS: '60' },
  },
});

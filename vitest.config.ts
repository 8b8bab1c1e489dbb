import { defineConfig } from 'vitest/config';

// Integration tests build native code and spawn real processes: generous timeouts, no file parallelism blowups on 2 cores.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
    // After vitest's summary: one line per missing build that skipped tests, with the command that builds it.
    reporters: ['default', './test/reporters/needs.ts'],
  },
});

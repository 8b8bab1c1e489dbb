import { defineConfig } from 'vitest/config';

// Integration tests build native code and spawn real processes: generous timeouts, no file parallelism blowups on 2 cores.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});

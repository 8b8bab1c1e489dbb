import { defineConfig } from 'vitest/config';

// The core's own tests, minus those that spawn the built binary or read the shipped goldens or evidence (not in the sandbox): what StrykerJS runs against each mutant.
export default defineConfig({
  test: {
    // Plus the anytime-valid sequence's own tests (src/gates/ab/judge/sequential.ts's sequenceDecisions), the pure judgements of device mutants (src/mutate/device.ts), the suite readers' and the mutation
    // verdicts' pure tests (over captured real suite output), and Holm's step-down (src/stats/holm.ts), which are in Stryker's scope too.
    include: ['test/core/**/*.test.ts', 'test/mutate/device.test.ts', 'test/mutate/suites/{readers,judge,targets,edges}.test.ts', 'test/mutate/verdict.test.ts', 'test/stats/sequential.test.ts', 'test/stats/holm.test.ts'],
    exclude: ['test/core/cli.test.ts', 'test/core/cold-start.test.ts', 'test/core/schemas.test.ts', 'test/core/config.test.ts', 'test/core/config-refs.test.ts', 'test/core/gpu-verdicts-doc.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    env: { NHG_PROPERTY_RUNS: '60' },
  },
});

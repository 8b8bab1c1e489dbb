// Pure statistics: summaries and a seeded bootstrap interval for A/B ratios.
export { mean, median, stdev, min, max, relativeSpread, summarize } from './summary.js';
export type { Summary } from './summary.js';
export { bootstrapRatioCi, seededRandom } from './bootstrap.js';
export type { RatioCi, RatioCiOptions } from './bootstrap.js';

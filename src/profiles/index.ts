// The profiles module's public surface: line shapes as data, the incremental reader, and its stand-alone parsers.
export * from './types.js';
export { BUILTIN_PROFILES, NEMOTRON_H, NH_REF } from './builtin.js';
export { getProfile, listProfiles, resolveProfile } from './registry.js';
export { createDriverReader, splitArchs } from './reader.js';
export { parseDoctestSummary, parseDoctestSummaries, judgeDoctest } from './doctest.js';
export type { DoctestJudgement, DoctestJudgeOptions } from './doctest.js';
export { parseFeatureTable, checkRequiredCells } from './features.js';
export type { CellCheck } from './features.js';
export { parseTimedLine, formatTimedLine } from './timed.js';
export { ProfileSchema } from './schema.js';

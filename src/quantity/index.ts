// The quantity module's public surface: every number nh-gate prints is built and rendered through these.
export * from './types.js';
export { measured, refused, withheld, isFiniteNumber, isMeasured } from './make.js';
export { perOutputToken, PER_OUTPUT_TOKEN } from './perToken.js';
export type { PerOutputTokenInput, WindowMissing } from './perToken.js';
export { busyFromSamples, BUSY_NAME, BUSY_SHARE_NAME } from './busy.js';
export type { BusyFigures, BusyOptions, UtilPoint, WindowS } from './busy.js';
export { ratio, delta, compareToBaseline, archClaimKey } from './compare.js';
export { renderQuantity, quantityJson, formatValue } from './render.js';

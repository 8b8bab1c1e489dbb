// The harness's one clock: CLOCK_MONOTONIC nanoseconds (process.hrtime is CLOCK_MONOTONIC on Linux),
// the same clock the reference engine stamps its events with, so the two can be compared directly.
export function monoNs(): bigint {
  return process.hrtime.bigint();
}

// Seconds between two monotonic instants, as a float (differences fit a double without loss that matters).
export function spanS(fromNs: bigint, toNs: bigint): number {
  return Number(toNs - fromNs) / 1e9;
}

// Absolute monotonic seconds, the unit of the samples file format (src/config/samples.ts).
export function monoS(tNs: bigint): number {
  return Number(tNs) / 1e9;
}

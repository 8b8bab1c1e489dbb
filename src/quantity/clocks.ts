import type { Quantity } from './types.js';
import type { Silicon } from '../silicon/types.js';
import type { WindowS } from './busy.js';
import { isFiniteNumber, measured, refused } from './make.js';

// SM clocks and clock-event reasons over a leg's window (issue #11): a leg whose clocks were held down by power,
// thermal or hardware slowdown is flagged, and a gate may void it (THROTTLED).

export interface ClockPoint {
  tS: number;
  smMHz: number | null;
  eventReasons: string[];
}

// The reasons that mean the clock was held below what the load asked for. GpuIdle, ApplicationsClocksSetting,
// SyncBoost and DisplayClockSetting are states, not slowdowns.
export const THROTTLE_REASONS = ['SwPowerCap', 'HwSlowdown', 'SwThermalSlowdown', 'HwThermalSlowdown', 'HwPowerBrakeSlowdown'] as const;

export interface ClockFigures {
  smClockMin: Quantity;
  smClockMedian: Quantity;
  // Every reason seen in the window, with how many samples reported it; throttled when any is a slowdown.
  reasons: Record<string, number>;
  throttled: boolean;
  throttleReasons: string[];
  samples: number;
}

// Clock samples inside the window (the sampler stamps them on the harness clock); NO_SAMPLES when none fell in it.
export function clocksOverWindow(points: readonly ClockPoint[], window: WindowS | null, silicon: Silicon | null = null): ClockFigures {
  const inside = window === null ? [] : points.filter((p) => p.tS >= window.startS && p.tS <= window.endS);
  const reasons: Record<string, number> = {};
  for (const p of inside) for (const r of p.eventReasons) reasons[r] = (reasons[r] ?? 0) + 1;
  const throttleReasons = Object.keys(reasons).filter((r) => (THROTTLE_REASONS as readonly string[]).includes(r) || /^0x/.test(r)).sort();
  const mhz = inside.map((p) => p.smMHz).filter((v): v is number => v !== null && isFiniteNumber(v)).sort((a, b) => a - b);
  const why = window === null ? 'no window is known' : `no clock sample with an SM clock fell inside the ${(window.endS - window.startS).toFixed(3)} s window`;
  const terms = { samples: { value: mhz.length, unit: 'samples', label: 'clock samples in the window' } };
  const q = (name: string, v: number | undefined): Quantity =>
    v === undefined ? refused(name, window === null ? 'WINDOW_UNKNOWN' : 'NO_SAMPLES', why) : measured(name, 'smClock', v, 'MHz', terms, { silicon });
  return {
    smClockMin: q('SM clock (min)', mhz[0]),
    smClockMedian: q('SM clock (median)', mhz.length ? mhz[Math.floor((mhz.length - 1) / 2)] : undefined),
    reasons,
    throttled: throttleReasons.length > 0,
    throttleReasons,
    samples: inside.length,
  };
}

// One line for a leg: clocks and what held them, for the text report.
export function describeClocks(c: ClockFigures): string {
  const min = c.smClockMin.status === 'measured' ? `${c.smClockMin.value} MHz` : `n/a (${c.smClockMin.reason})`;
  const med = c.smClockMedian.status === 'measured' ? `${c.smClockMedian.value} MHz` : 'n/a';
  const seen = Object.entries(c.reasons).map(([r, n]) => `${r}×${n}`).join(', ') || 'none';
  return `SM clock min ${min}, median ${med} over ${c.samples} clock sample(s); clock-event reasons ${seen}${c.throttled ? ` — THROTTLED (${c.throttleReasons.join(', ')})` : ''}`;
}

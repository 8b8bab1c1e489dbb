import { median } from './summary.js';

// Outlier legs by the modified z-score of Iglewicz & Hoaglin (1993): z = 0.6745 (x − median) / MAD,
// flagged when |z| > 3.5. Median and MAD resist the outliers they look for, unlike mean and sd.
// Flagged, never dropped: dropping legs after seeing them would undo the pre-registration.

export const MODIFIED_Z_LIMIT = 3.5;

export interface OutlierFlag {
  i: number; // index into the input
  value: number;
  z: number;
}

// Median absolute deviation from the median (unscaled).
export function mad(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const m = median(xs);
  return median(xs.map((x) => Math.abs(x - m)));
}

// The values whose modified z-score exceeds the limit; none below 3 values or when MAD is 0 and all agree.
export function flagOutliers(xs: readonly number[], limit = MODIFIED_Z_LIMIT): OutlierFlag[] {
  if (xs.length < 3) return [];
  const m = median(xs);
  const d = mad(xs);
  const out: OutlierFlag[] = [];
  for (let i = 0; i < xs.length; i++) {
    const dev = xs[i]! - m;
    // MAD 0 (more than half the values identical): any differing value is infinitely far in MAD units.
    const z = d > 0 ? (0.6745 * dev) / d : dev === 0 ? 0 : Math.sign(dev) * Number.POSITIVE_INFINITY;
    if (Math.abs(z) > limit) out.push({ i, value: xs[i]!, z });
  }
  return out;
}

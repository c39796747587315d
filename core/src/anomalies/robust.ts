// Robust location and scale for short baselines (14 same-hours, a few weeks): the median and the median
// absolute deviation ignore a handful of zeros (an outage, a quiet holiday) or one earlier spike, which a mean
// and a standard deviation would not.

/** Median of the values (0 for none). Does not modify its input. */
export function median(values: readonly number[]): number {
  return medianInPlace(values.slice());
}

// Insertion sort: the baselines are 14 values (at most 4 for the weekly ones), where it takes ~50 comparisons
// and no callback. Array#sort with a comparator made robustScore cost ~8 µs, and the crawler-spike check calls
// it for every crawler and hour of the window (21,600 times for 30 crawlers over 30 days).
function medianInPlace(values: number[]): number {
  const n = values.length;
  if (n === 0) return 0;
  for (let i = 1; i < n; i++) {
    const v = values[i]!;
    let j = i - 1;
    while (j >= 0 && values[j]! > v) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = v;
  }
  const mid = n >> 1;
  return n % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}

/** Median absolute deviation from `center`. */
export function medianAbsoluteDeviation(values: readonly number[], center: number): number {
  const deviations = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) deviations[i] = Math.abs(values[i]! - center);
  return medianInPlace(deviations);
}

// 1.4826 × MAD estimates the standard deviation of normally distributed data (1 / Φ⁻¹(3/4)).
const MAD_TO_SD = 1.4826;

/**
 * How far `observed` lies from a baseline, in robust standard deviations. The scale never falls below the
 * Poisson spread of the expected count (√expected, at least 1): a baseline of identical counts has a MAD of 0,
 * and counts are never steadier than Poisson noise, so 12 against a steady 10 is not a 10-sigma event.
 */
export function robustScore(observed: number, baseline: readonly number[]): { expected: number; score: number } {
  const expected = median(baseline);
  const scale = Math.max(MAD_TO_SD * medianAbsoluteDeviation(baseline, expected), Math.sqrt(Math.max(expected, 1)));
  return { expected, score: (observed - expected) / scale };
}

// Robust location and scale for short baselines (14 same-hours, a few weeks): the median and the median
// absolute deviation ignore a handful of zeros (an outage, a quiet holiday) or one earlier spike, which a mean
// and a standard deviation would not.

/** Median of the values (0 for none). Does not modify its input. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median absolute deviation from `center`. */
export function medianAbsoluteDeviation(values: readonly number[], center: number): number {
  return median(values.map((v) => Math.abs(v - center)));
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

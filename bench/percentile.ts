/** The value at percentile `p` (0–100) of an ascending list, by the nearest-rank rule; NaN for an empty list. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Tick values for an axis that counts whole things (calls, contacts): a linear scale's own ticks, less the
 * fractions it picks for a small domain (0, 0.5, 1, 1.5 for at most 2 calls), which would read as half calls.
 */
export function wholeTicks(scale: { ticks: (count?: number) => number[] }, count: number): number[] {
  return scale.ticks(count).filter((tick) => Number.isInteger(tick));
}

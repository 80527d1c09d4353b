/** Money is kept in micro-dollars (1 USD = 1,000,000) so sums are exact; the API speaks USD. */
export const MICROS_PER_USD = 1_000_000;

export const usdToMicros = (usd: number): number => Math.round(usd * MICROS_PER_USD);

export const microsToUsd = (micros: number): number => micros / MICROS_PER_USD;

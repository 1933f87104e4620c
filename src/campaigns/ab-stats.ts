/**
 * The confidence of an A/B test's difference (issue 32 item 3): a two-proportion z-test with the pooled proportion,
 * two-sided, of the leading variant against the runner-up. Pure arithmetic; /help explains it from these names.
 */

/** The confidence a winner must reach to be called clear, in percent. */
export const CLEAR_AT = 95;

/** The standard normal distribution function, by the error function of Abramowitz & Stegun 7.1.26 (error < 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

export type Proportion = { hits: number; of: number };

/**
 * How confident one may be that two rates differ: 1 - the two-sided p-value of the pooled two-proportion z-test, in
 * percent with one decimal. Null when it cannot be told: a side with nobody reached, or no hits (or only hits) on
 * both, where the test has no spread to measure.
 */
export function differenceConfidence(a: Proportion, b: Proportion): { z: number; confidence: number } | null {
  if (!a.of || !b.of) return null;
  const pooled = (a.hits + b.hits) / (a.of + b.of);
  if (pooled === 0 || pooled === 1) return null;
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.of + 1 / b.of));
  const z = (a.hits / a.of - b.hits / b.of) / se;
  const pValue = 2 * (1 - normalCdf(Math.abs(z)));
  return { z: Math.round(z * 100) / 100, confidence: Math.round((1 - pValue) * 1000) / 10 };
}

/**
 * The order of variants by rate, best first; a tie goes to the earlier variant (A before B), as the variant a
 * rule sends when the rates are equal: what email and SMS tools commonly do (the original when nothing beats it).
 */
export function rankByRate(rates: { variant: number; hits: number; of: number }[]) {
  const value = (r: { hits: number; of: number }) => (r.of ? r.hits / r.of : -1);
  return [...rates].sort((x, y) => value(y) - value(x) || x.variant - y.variant);
}

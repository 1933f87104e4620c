/**
 * An A/B test's rules (issue 32 item 3) and the confidence of its difference: a two-proportion z-test with the
 * pooled proportion, two-sided, of the leading variant against the runner-up. Pure, with no imports: the server
 * applies these figures and /help renders AB_RULES from them.
 */

/** The confidence a winner must reach to be called clear, in percent. */
export const CLEAR_AT = 95;
export const AB_LIMITS = { variants: { min: 2, max: 4 }, testPercent: { min: 2, max: 50 }, decideAfterHours: { min: 1, max: 168 } } as const;
/** A reply counts for its variant this long after the message was sent. */
export const REPLY_WINDOW_HOURS = 72;
/** A rule's decision waits while test messages are still to go out (quiet hours, a pause): it looks again this often. */
export const RECHECK_MINUTES = 15;

/** How an A/B test runs, in the words /help shows. */
export const AB_RULES = [
  `A campaign may test ${AB_LIMITS.variants.min} to ${AB_LIMITS.variants.max} versions of its text (A is the message itself) on a share of its audience, ${AB_LIMITS.testPercent.min}% to ${AB_LIMITS.testPercent.max}%, split evenly between them; the rest of the audience waits for the winner.`,
  "Who is in the test is drawn once, when the campaign starts, and kept: a restart never draws again, and nobody gets two texts.",
  `The winner is the version with the higher human click rate (people's clicks only, as “Which clicks count?” says, over the texts that reached the provider) or the higher reply rate (recipients who texted back within ${REPLY_WINDOW_HOURS} hours of their text; an opt-out such as STOP is not a reply).`,
  `After the hours you chose (${AB_LIMITS.decideAfterHours.min} to ${AB_LIMITS.decideAfterHours.max}), the version with the higher rate goes to the rest, through the same outbox and within quiet hours, even when the difference is not clear, as email and SMS tools commonly do; on a tie, A goes. While test texts are still waiting to go out (quiet hours, a pause) the decision waits, looking again every ${RECHECK_MINUTES} minutes. Or pick by hand: the campaign's details offer Send winner now (the leader) and Pick for each version.`,
  `The report shows each version's figures and how confident you can be that the leader beats the runner-up: a two-proportion z-test (pooled, two-sided). At ${CLEAR_AT}% or more it names a clear winner; below, it says there is no clear winner yet.`,
];

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

/**
 * The search parameters of the screens that read them, checked where the route is declared (TanStack Router's
 * validateSearch, ui/router.tsx): a screen gets typed values from its route's useSearch(), and a hand-edited
 * address yields the defaults, never a value the screen does not know. Each answers every key it owns, undefined
 * included: the router merges a route's answer over the raw parameters, so a key left out would pass through raw.
 */
export const AUTOMATION_TABS = ["rules", "drips", "templates"] as const;
export type AutomationTab = (typeof AUTOMATION_TABS)[number];

/** /automation?tab=drips opens that tab; anything else, the rules. */
export const automationSearch = (search: Record<string, unknown>): { tab: AutomationTab } => ({
  tab: AUTOMATION_TABS.find((t) => t === search.tab) ?? "rules",
});

/** /license?onboarding (any value) shows the setup wizard's license prompt instead of the license page. */
export const licenseSearch = (search: Record<string, unknown>): { onboarding: boolean } => ({
  onboarding: "onboarding" in search && search.onboarding !== false,
});

/** /auth/reset-password?token=...: the emailed link's token, when it is text. */
export const resetPasswordSearch = (search: Record<string, unknown>): { token: string | undefined } => ({
  token: typeof search.token === "string" && search.token ? search.token : undefined,
});

/**
 * The search parameters of the screens that read them, checked where the route is declared (TanStack Router's
 * validateSearch, ui/router.tsx): a screen gets typed values from its route's useSearch(), and a hand-edited
 * address yields the defaults, never a value the screen does not know. Each answers every key it owns, undefined
 * included: the router merges a route's answer over the raw parameters, so a key left out would pass through raw.
 */
import { safeNextPath } from "./next-path";

/** A parameter meant as text: the router reads `?x=404` as a number and `?x=true` as true; those are their text. */
const text = (v: unknown): string | undefined =>
  typeof v === "string" ? v || undefined : typeof v === "number" || typeof v === "boolean" ? String(v) : undefined;

export type AuthSearch = { next: string | undefined; step: "2fa" | undefined; error: string | undefined };

/**
 * /auth: `?next=` the page to return to after signing in (only a path of this site, never the sign-in itself:
 * anything else returns home), `?step=2fa` the code step of a Google sign-in whose account has 2FA, `?error=` why a
 * Google sign-in failed (shown once, at most 200 characters).
 */
export const authSearch = (search: Record<string, unknown>): AuthSearch => ({
  next: safeNextPath(text(search.next)) ?? undefined,
  step: search.step === "2fa" ? "2fa" : undefined,
  error: text(search.error)?.slice(0, 200),
});

/** "/": `?auth=google` is Google's sign-in coming back (the page that sent the user waits in the tab). */
export const homeSearch = (search: Record<string, unknown>): { auth: "google" | undefined } => ({
  auth: search.auth === "google" ? "google" : undefined,
});
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

/** The wizard's kinds of campaign (ui/routes/app/campaigns/wizard-samples.ts describes each). */
export const CAMPAIGN_TYPE_IDS = ["promotion", "reminder", "update", "welcome"] as const;
export type CampaignType = (typeof CAMPAIGN_TYPE_IDS)[number];
export const isCampaignType = (v: unknown): v is CampaignType => CAMPAIGN_TYPE_IDS.some((t) => t === v);

export type WizardSearch = { message: string | undefined; type: CampaignType | undefined; contactId: string | undefined; name: string | undefined; segmentId: string | undefined };

/**
 * /simple-campaign-wizard: `?message=` and `?type=` prefill it, `?contactId=&name=` address one contact (a contact's
 * "Send Message"), `?segmentId=` a saved segment. A message the router read as a number or true is its text.
 */
export const wizardSearch = (search: Record<string, unknown>): WizardSearch => {
  const contactId = typeof search.contactId === "string" && search.contactId ? search.contactId.slice(0, 64) : undefined;
  return {
    message: search.message === undefined || search.message === null ? undefined : String(search.message),
    type: isCampaignType(search.type) ? search.type : undefined,
    contactId,
    name: contactId ? String(search.name ?? "").slice(0, 200) : undefined,
    segmentId: typeof search.segmentId === "string" && search.segmentId ? search.segmentId.slice(0, 64) : undefined,
  };
};

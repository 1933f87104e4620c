import type { PhoneNumber, NumberKind } from "../../../api/phone-numbers";
import type {
  AvailableNumber,
  AvailableNumbersResult,
  CredentialField,
  Provider,
  ProviderFields,
  ProviderKind,
  WebhookUrl,
  WebhookUrls,
} from "../../../api/providers";

export type { AvailableNumber, AvailableNumbersResult, CredentialField, NumberKind, PhoneNumber, Provider, ProviderFields, ProviderKind, WebhookUrl, WebhookUrls };

export type SimulatorSettings = { deliveryDelayMs: number; failRate: number; throttleRate: number; errorRate: number };

export const PROVIDER_NAMES: Record<ProviderKind, string> = {
  twilio: "Twilio",
  telnyx: "Telnyx",
  brevo: "Brevo",
  textmagic: "TextMagic",
  clicksend: "ClickSend",
  simulator: "Simulator",
};

/** A provider's name for a kind the server sends as a plain string (a sender number's `provider`). */
export const providerName = (kind: string) => PROVIDER_NAMES[kind as ProviderKind] ?? kind;

/** Providers that sign nothing: their webhook URL carries a per-account secret instead. */
export const URL_SECRET_PROVIDERS: ProviderKind[] = ["brevo", "textmagic", "clicksend"];

export const NUMBER_KINDS: { value: NumberKind; label: string; rate: number }[] = [
  { value: "long_code", label: "Long code", rate: 1 },
  { value: "toll_free", label: "Toll-free", rate: 3 },
  { value: "short_code", label: "Short code", rate: 30 },
  { value: "alphanumeric", label: "Alphanumeric sender", rate: 1 },
];

export const kindLabel = (kind: NumberKind) => NUMBER_KINDS.find((k) => k.value === kind)?.label ?? kind;
export const defaultRate = (kind: NumberKind) => NUMBER_KINDS.find((k) => k.value === kind)?.rate ?? 1;

const TOLL_FREE = /^\+1(800|833|844|855|866|877|888)\d{7}$/;

/** The kind a sender most likely is, as the server guesses it when none is given. */
export function guessKind(sender: string): NumberKind {
  const value = sender.replace(/[\s().-]/g, "");
  if (/[a-z]/i.test(value)) return "alphanumeric";
  if (/^\d{3,8}$/.test(value)) return "short_code";
  if (TOLL_FREE.test(value)) return "toll_free";
  return "long_code";
}

export const REQUIRED_NUMBER = "Phone number is required";
export const BAD_NUMBER = "Please enter the number in international format, e.g. +14155550123";

/**
 * Checks a typed sender as the server does: an E.164 number, a 3-8 digit short code, or an alphanumeric sender name (up to 11
 * letters, digits and spaces). Answers the sender as it is sent (separators removed) or the error to show.
 */
export function checkSender(input: string): { value: string } | { error: string } {
  const trimmed = input.trim();
  if (!trimmed) return { error: REQUIRED_NUMBER };
  if (/[a-z]/i.test(trimmed)) return /^[a-z0-9 ]{1,11}$/i.test(trimmed) ? { value: trimmed } : { error: BAD_NUMBER };
  const compact = trimmed.replace(/[\s().-]/g, "");
  if (/^\d{3,8}$/.test(compact) || /^\+[1-9]\d{6,14}$/.test(compact)) return { value: compact };
  return { error: BAD_NUMBER };
}

/** +1 (xxx) xxx-xxxx for North American numbers; anything else as stored. */
export function formatSender(sender: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(sender);
  return m ? `+1 (${m[1]}) ${m[2]}-${m[3]}` : sender;
}

/** Percent shown in the form, fraction stored: 12.5 <-> 0.125. */
export const toPercent = (fraction: number | undefined) =>
  fraction === undefined ? "" : String(Math.round(fraction * 1000) / 10);
export const fromPercent = (percent: string) => Math.min(100, Math.max(0, Number(percent) || 0)) / 100;

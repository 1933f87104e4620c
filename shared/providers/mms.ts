import type { ProviderKind } from "./kinds";

/**
 * Which providers' APIs send MMS (pictures and files), and what one costs. Twilio takes `MediaUrl`, Telnyx
 * `media_urls`; Brevo, TextMagic and ClickSend send text only, so a message with attachments from one of their
 * numbers is refused before it is queued. The simulator sends MMS so a fresh installation can try them.
 */
export const SENDS_MMS: Record<ProviderKind, boolean> = {
  twilio: true,
  telnyx: true,
  simulator: true,
  brevo: false,
  textmagic: false,
  clicksend: false,
};

export const PROVIDER_NAMES: Record<ProviderKind, string> = {
  twilio: "Twilio",
  telnyx: "Telnyx",
  simulator: "The simulator",
  brevo: "Brevo",
  textmagic: "TextMagic",
  clicksend: "ClickSend",
};

/** The refusal for an MMS from a provider that cannot send one. */
export function cannotSendMms(kind: ProviderKind): string | null {
  if (SENDS_MMS[kind]) return null;
  return `${PROVIDER_NAMES[kind]} cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments`;
}

/**
 * List prices per outbound US MMS (late 2025, carrier fees left out), in millionths of a dollar: a starting point
 * labelled as a default until the user sets the account's own price. Null: the provider sends no MMS.
 */
export const DEFAULT_MMS_PRICE_MICROS: Record<ProviderKind, number | null> = {
  twilio: 20_000,
  telnyx: 15_000,
  simulator: 0,
  brevo: null,
  textmagic: null,
  clicksend: null,
};

/** The SMS providers an account can connect (the smsProviders table's enum in db/schema.ts). */
export const PROVIDER_KINDS = ["twilio", "telnyx", "brevo", "textmagic", "clicksend", "simulator"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

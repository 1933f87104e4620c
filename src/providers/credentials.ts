import { createHmac, timingSafeEqual } from "node:crypto";
import type { ProviderKind } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { decryptSecret, encryptSecret } from "../secrets/encryption";
import type { Credentials } from "./types";

export type CredentialField = { name: string; label: string; secret: boolean; placeholder?: string };

export const PROVIDER_LABELS: Record<ProviderKind, string> = {
  twilio: "Twilio",
  telnyx: "Telnyx",
  brevo: "Brevo",
  textmagic: "TextMagic",
  clicksend: "ClickSend",
  simulator: "Simulator (no real messages)",
};

/** The credential fields each provider asks for (business.md: SMS provider entity), in form order. */
export const CREDENTIAL_FIELDS: Record<ProviderKind, CredentialField[]> = {
  twilio: [
    { name: "accountSid", label: "Account SID", secret: false, placeholder: "AC..." },
    { name: "authToken", label: "Auth Token", secret: true },
  ],
  telnyx: [
    { name: "apiKey", label: "API Key", secret: true, placeholder: "KEY..." },
    { name: "publicKey", label: "Public Key (webhook signing)", secret: false, placeholder: "Base64 key from Keys & Credentials" },
  ],
  brevo: [{ name: "apiKey", label: "API Key", secret: true, placeholder: "xkeysib-..." }],
  textmagic: [
    { name: "apiKey", label: "Username", secret: false },
    { name: "apiSecret", label: "API Key", secret: true },
  ],
  clicksend: [
    { name: "apiKey", label: "Username", secret: false },
    { name: "apiSecret", label: "API Key", secret: true },
  ],
  simulator: [],
};

/** Every field present, trimmed; the spec's "<Label> is required" otherwise. Extra fields are dropped. */
export function cleanCredentials(kind: ProviderKind, input: Record<string, unknown>): Credentials {
  const out: Credentials = {};
  for (const field of CREDENTIAL_FIELDS[kind]) {
    const value = typeof input[field.name] === "string" ? (input[field.name] as string).trim() : "";
    if (!value) throw badRequest(`${field.label} is required`);
    if (value.length > 500) throw badRequest(`${field.label} is too long`);
    out[field.name] = value;
  }
  if (kind === "twilio" && !/^AC[0-9a-fA-F]{32}$/.test(out.accountSid!)) {
    throw badRequest("Account SID must start with AC followed by 32 letters and digits");
  }
  if (kind === "telnyx") {
    const key = Buffer.from(out.publicKey!, "base64");
    if (key.length !== 32) throw badRequest("Public Key must be the base64 public key Telnyx shows under Keys & Credentials");
  }
  return out;
}

/** The most any call shows of stored credentials: the last 4 characters of the main secret. */
export function credentialHint(kind: ProviderKind, credentials: Credentials): string {
  const secret = CREDENTIAL_FIELDS[kind].find((f) => f.secret);
  const value = secret ? credentials[secret.name] : undefined;
  return value ? `…${value.slice(-4)}` : "";
}

export const sealCredentials = (ctx: AppContext, credentials: Credentials) => encryptSecret(ctx.keys.secrets, JSON.stringify(credentials));
export const openCredentials = (ctx: AppContext, sealed: string) => JSON.parse(decryptSecret(ctx.keys.secrets, sealed)) as Credentials;

/**
 * The secret carried in the webhook URL of providers that sign nothing. Derived from the data folder's key and
 * the account id, so it is stored nowhere and a copy of the database alone cannot forge deliveries.
 */
export function webhookSecret(ctx: AppContext, providerId: string): string {
  return createHmac("sha256", ctx.keys.webhooks).update(providerId).digest("base64url").slice(0, 32);
}

export function webhookSecretMatches(ctx: AppContext, providerId: string, given: string | null | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(webhookSecret(ctx, providerId));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

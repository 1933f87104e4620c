import type { ProviderKind } from "../../db/schema";

// The kinds a webhook URL may name, for the inbound flow above (which imports no db/).
export { PROVIDER_KINDS } from "../../db/schema";

export type { ProviderKind };

/** What a provider tells us about an outbound message, in our words. */
export type ProviderStatus = "queued" | "sent" | "delivered" | "failed";

export type OutboundMessage = {
  /** E.164 recipient. */
  to: string;
  /** The sender: E.164 number, short code or alphanumeric sender name. */
  from: string;
  body: string;
  /** Where the provider should post delivery reports for this message (providers that take one per message). */
  statusCallbackUrl: string;
  /** Our message id, for providers that echo a reference back. */
  reference: string;
  /** An MMS: signed, expiring URLs on PUBLIC_URL the provider fetches each picture or file from (src/media). */
  mediaUrls?: string[];
};

export type SendResult = {
  providerMessageId: string;
  status: ProviderStatus;
  /** Segments the provider counted, when it says. */
  segments?: number;
};

/**
 * - transient: 5xx, timeouts, network errors; retry with backoff.
 * - rate_limited: 429; retry after `retryAfterMs` (the provider's Retry-After when given), not a failure.
 * - permanent: bad number, blocked, rejected content; fail at once.
 * - opted_out: the recipient opted out at the provider (Twilio 21610, Telnyx 40300); fail and mark the contact.
 * - auth: credentials refused; fail at once (and the account needs attention).
 */
export type ProviderErrorKind = "transient" | "rate_limited" | "permanent" | "opted_out" | "auth";

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    /** The provider's own error code, as a string ('21610', '40300', 'invalid_parameter', 'HTTP 500'...). */
    readonly code: string | null,
    message: string,
    readonly httpStatus: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  get retryable() {
    return this.kind === "transient" || this.kind === "rate_limited";
  }
}

/**
 * What reconciliation (src/messages/reconcile.ts) asks a provider about a message whose send was cut off by a
 * crash: did the provider accept it? Our reference finds it where the provider echoes one; otherwise recipient,
 * sender and body within the window the request could have been accepted in.
 */
export type SentLookup = {
  /** Our message id, as `send` passed it in `reference`. */
  reference: string;
  to: string;
  from: string;
  body: string;
  /** The window (ms) the provider may have accepted it in: from the call's start to its timeout plus a margin. */
  after: number;
  before: number;
};

/** A message the provider holds that matches a lookup. */
export type SentMatch = { providerMessageId: string; status: ProviderStatus };

/**
 * - matches: the provider answered for certain; every message it holds that fits (none: it definitively has none).
 *   The caller leaves out the ids already recorded on other messages (the same body sent earlier to the same person).
 * - cannot_tell: no lookup API, or it cannot answer for this window; `reason` says why, for the user.
 * A failed lookup (network, 5xx, timeout) throws ProviderError instead, so the caller retries.
 */
export type SentLookupResult = { kind: "matches"; matches: SentMatch[] } | { kind: "cannot_tell"; reason: string };

/** A number the provider account owns, offered when adding a sender number. */
export type AvailableNumber = { phoneNumber: string; displayName: string; capabilities: string[] };

/** A webhook request as received, with the URL the provider called (PUBLIC_URL + path + query). */
export type WebhookRequest = {
  url: string;
  headers: Headers;
  rawBody: string;
  contentType: string;
  /** Now in ms (the server's clock; tests control it). */
  now: number;
};

export type WebhookEvent =
  | {
      type: "status";
      providerMessageId: string;
      status: ProviderStatus;
      errorCode?: string | null;
      errorMessage?: string | null;
    }
  | {
      type: "inbound";
      providerMessageId: string;
      /** E.164 (or as the provider gave it when it is not a number). */
      from: string;
      to: string;
      body: string;
      media?: string[];
      /** The provider already opted the sender out and confirmed it to them (Brevo): we record it, and reply nothing. */
      optOutConfirmed?: boolean;
    };

export type WebhookParseResult = {
  events: WebhookEvent[];
  /** A body the provider expects back (Twilio: empty TwiML). Default: `{"ok":true}` JSON. */
  reply?: { body: string; contentType: string };
};

/** Events one webhook request may carry (only the simulator batches; every real provider posts one); 413 above. */
export const MAX_WEBHOOK_EVENTS = 1000;

/** Thrown by `parseWebhook` when the request is not authentic; answered 403 with nothing changed. */
export class WebhookRejected extends Error {}

export interface ProviderAdapter {
  readonly kind: ProviderKind;
  /**
   * How webhooks from this provider are authenticated: 'signature' adapters verify inside `parseWebhook`;
   * 'url-secret' providers sign nothing, so the route checks the per-account secret in the URL first.
   */
  readonly webhookAuth: "signature" | "url-secret";
  /** Loads what the first call would otherwise load (an SDK), so paced sends start when they are counted. */
  prepare?(): Promise<void>;
  send(message: OutboundMessage): Promise<SendResult>;
  /** Whether the provider accepted a message whose send was cut off (see SentLookupResult). */
  findSent(lookup: SentLookup): Promise<SentLookupResult>;
  /** The numbers (or sender names) the account owns. */
  listNumbers(): Promise<AvailableNumber[]>;
  /** A real cheap call (account fetch, balance or ping); answers a short description, throws ProviderError. */
  testConnection(): Promise<string>;
  /**
   * Fetches an inbound MMS's item from the URL the provider's webhook named, with the account's credentials where
   * the provider asks for them (Twilio's media URLs take Basic auth); absent: a plain GET.
   */
  fetchMedia?(url: string, signal: AbortSignal): Promise<Response>;
  /** Verifies (throws WebhookRejected) and parses an inbound-message or delivery-report webhook. */
  parseWebhook(request: WebhookRequest): WebhookParseResult | Promise<WebhookParseResult>;
  /**
   * The carrier registration of US numbers (A2P 10DLC campaign, toll-free verification) as the provider holds it;
   * absent for providers with no registration API. Throws ProviderError when the provider cannot be asked.
   */
  registrations?(numbers: RegistrationQuery[]): Promise<Map<string, RegistrationFinding>>;
}

/** A US number to look up, and the program it needs: 10DLC for a local number, verification for a toll-free one. */
export type RegistrationQuery = { phoneNumber: string; program: "10dlc" | "toll_free" };

/**
 * What the provider says of one number. `reason`: the reviewers' words for a rejection, or what is missing;
 * `detail`: the brand, campaign or verification it belongs to and any throughput the carriers granted.
 */
export type RegistrationFinding = {
  state: "registered" | "pending" | "rejected" | "unregistered";
  reason: string | null;
  detail: string | null;
};

/** Decrypted credentials, by field name (see credentials.ts for each provider's fields). */
export type Credentials = Record<string, string>;

export type AdapterOptions = {
  /** API origin (and path prefix) from TWILIO_API_BASE etc., defaulting to the provider's real one. */
  baseUrl: string;
  /** Per-request timeout. */
  timeoutMs?: number;
};

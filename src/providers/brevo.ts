import { segmentInfo } from "../messages/segments";
import { errorFromStatus, type ProviderResponse } from "./http";
import {
  acceptedWithoutId,
  bodyDigest,
  num,
  rateLimitDelayMs,
  record,
  restClient,
  senderForApi,
  str,
  text,
  webhookFields,
  withoutPlus,
  withPlus,
} from "./rest-common";
import {
  ProviderError,
  type AdapterOptions,
  type AvailableNumber,
  type OutboundMessage,
  type ProviderAdapter,
  type ProviderStatus,
  type SendResult,
  type WebhookEvent,
  type WebhookParseResult,
  type WebhookRequest,
  type SentLookupResult,
} from "./types";

/** Brevo error codes (`{code, message}`) that mean the message itself was refused: retrying cannot help. */
const REFUSED = new Set(["invalid_parameter", "missing_parameter", "not_enough_credits"]);

/** Progress events of the transactional SMS webhook, keyed lower-case without underscores. */
const PROGRESS: Record<string, ProviderStatus> = { accepted: "queued", sent: "sent", delivered: "delivered" };

/** Failure events, with what a user reads next to the failed message. */
const FAILURES: Record<string, string> = {
  softbounce: "Soft bounce: the handset could not be reached",
  hardbounce: "Hard bounce: the number cannot receive SMS",
  rejected: "Rejected by Brevo",
  skip: "Skipped by Brevo",
  blocked: "Blocked by Brevo",
};

export function brevoError(res: ProviderResponse): ProviderError {
  const body = record(res.body);
  const status = res.status;
  const code = str(body.code) ?? `HTTP ${status}`;
  const message = str(body.message) ?? `Brevo answered HTTP ${status}`;
  if (status === 429)
    return new ProviderError("rate_limited", code, message, status, rateLimitDelayMs(res.headers, "x-sib-ratelimit-reset"));
  if (status >= 500) return errorFromStatus(res, code, message);
  if (status === 401 || code === "unauthorized") return new ProviderError("auth", code, message, status);
  if (REFUSED.has(code)) return new ProviderError("permanent", code, message, status);
  return errorFromStatus(res, code, message);
}

function eventFrom(body: Record<string, unknown>, rawBody: string): WebhookEvent | null {
  const name = str(body.msg_status) ?? str(body.event);
  if (!name) return null;
  const key = name.toLowerCase().replace(/_/g, "");
  const messageId = text(body.messageId);
  const to = text(body.to);
  const contact = to ? withPlus(withoutPlus(to)) : null;
  // Replies and opt-outs are one event per message and date; a report posted twice must name the same inbound message.
  const stamp = `${messageId ?? (contact ? withoutPlus(contact) : "unknown")}-${text(body.date) ?? bodyDigest(rawBody)}`;

  if (key === "replied") {
    const reply = str(body.reply) ?? str(body.text) ?? str(body.content);
    if (!reply || !contact) return null;
    // Brevo does not say which sender the reply reached; the empty `to` lets the platform pick the account's sender.
    return { type: "inbound", providerMessageId: `brevo-reply-${stamp}`, from: contact, to: "", body: reply };
  }
  if (key === "unsubscribe" || key === "unsubscribed") {
    if (!contact) return null;
    // Brevo consumes the contact's STOP itself and only reports the opt-out. Replaying it as an inbound "STOP" runs it
    // through the same keyword handling as every other provider, so the contact is opted out here too and it is recorded.
    return { type: "inbound", providerMessageId: `brevo-unsubscribe-${stamp}`, from: contact, to: "", body: "STOP", optOutConfirmed: true };
  }
  if (!messageId) return null;
  const progress = PROGRESS[key];
  if (progress) return { type: "status", providerMessageId: messageId, status: progress, errorCode: null, errorMessage: null };
  const failure = FAILURES[key];
  if (failure) return { type: "status", providerMessageId: messageId, status: "failed", errorCode: name, errorMessage: failure };
  return null;
}

export function createBrevoAdapter(credentials: { apiKey: string }, options: AdapterOptions): ProviderAdapter {
  const call = restClient(options, { "api-key": credentials.apiKey }, brevoError);

  return {
    kind: "brevo",
    webhookAuth: "url-secret",

    async send(message: OutboundMessage): Promise<SendResult> {
      const { body } = await call("POST", "/v3/transactionalSMS/sms", {
        sender: senderForApi(message.from),
        recipient: withoutPlus(message.to),
        content: message.body,
        type: "marketing",
        webUrl: message.statusCallbackUrl,
        unicodeEnabled: segmentInfo(message.body).encoding !== "GSM-7",
      });
      const id = text(body.messageId);
      if (!id) throw acceptedWithoutId("Brevo");
      const count = num(body.smsCount);
      return { providerMessageId: id, status: "queued", ...(count && count > 0 ? { segments: count } : {}) };
    },

    /**
     * Brevo has no API for SMS senders or numbers (its /v3/senders endpoint is for email): the sender is a name or
     * number the user types in, so there is nothing to list, and listing none makes the UI offer manual entry.
     */
    async findSent(): Promise<SentLookupResult> {
      return { kind: "cannot_tell", reason: "Brevo is not asked: smsdesk does not tag Brevo messages with a reference to look them up by yet" };
    },

    async listNumbers(): Promise<AvailableNumber[]> {
      return [];
    },

    async testConnection(): Promise<string> {
      const { body } = await call("GET", "/v3/account");
      const plans = Array.isArray(body.plan) ? body.plan.map(record) : [];
      return `SMS credits: ${num(plans.find((p) => p.type === "sms")?.credits) ?? 0}`;
    },

    async parseWebhook(request: WebhookRequest): Promise<WebhookParseResult> {
      const event = eventFrom(await webhookFields(request), request.rawBody);
      return { events: event ? [event] : [] };
    },
  };
}

import { errorFromStatus, type ProviderResponse } from "./http";
import {
  acceptedWithoutId,
  num,
  record,
  restClient,
  senderForApi,
  str,
  text,
  webhookFields,
  withoutPlus,
  withPlus,
} from "./rest-common";
import type {
  AdapterOptions,
  AvailableNumber,
  OutboundMessage,
  ProviderAdapter,
  ProviderError,
  ProviderStatus,
  SendResult,
  SentLookupResult,
  WebhookEvent,
  WebhookParseResult,
  WebhookRequest,
} from "./types";

/** The largest page /api/v2/numbers serves. */
const PAGE_SIZE = 100;

/**
 * TextMagic's one-letter delivery statuses ("SMS Delivery Notification Codes"). `u` (status unknown) is left
 * out on purpose: it says nothing about the message, so it changes nothing.
 */
const STATUSES: Record<string, ProviderStatus> = { q: "queued", s: "queued", r: "sent", a: "sent", b: "sent", d: "delivered" };
const FAILURES: Record<string, string> = {
  f: "Delivery error",
  e: "Send error",
  j: "Rejected by the mobile operator",
};

/** The first reason in `errors` ({common: [...], fields: {phones: [...]}}), to say which field TextMagic refused. */
function firstReason(errors: unknown): string | null {
  const { common, fields } = record(errors);
  if (Array.isArray(common) && str(common[0])) return str(common[0]);
  for (const [field, reasons] of Object.entries(record(fields))) {
    const reason = Array.isArray(reasons) ? str(reasons[0]) : str(reasons);
    if (reason) return `${field}: ${reason}`;
  }
  return null;
}

/** TextMagic's `{code, message, errors}`; its codes follow HTTP, so the status decides the kind. */
export function textMagicError(res: ProviderResponse): ProviderError {
  const body = record(res.body);
  const code = text(body.code) ?? `HTTP ${res.status}`;
  const message = str(body.message) ?? `TextMagic answered HTTP ${res.status}`;
  const reason = firstReason(body.errors);
  return errorFromStatus(res, code, reason ? `${message}: ${reason}` : message);
}

function eventFrom(fields: Record<string, unknown>): WebhookEvent | null {
  const id = text(fields.id);
  if (!id) return null;
  const letter = str(fields.status)?.toLowerCase();
  if (letter) {
    const status = STATUSES[letter];
    if (status) return { type: "status", providerMessageId: id, status, errorCode: null, errorMessage: null };
    const failure = FAILURES[letter];
    return failure ? { type: "status", providerMessageId: id, status: "failed", errorCode: letter, errorMessage: failure } : null;
  }
  const sender = text(fields.sender);
  if (!sender || typeof fields.text !== "string") return null;
  const receiver = text(fields.receiver);
  return {
    type: "inbound",
    providerMessageId: id,
    from: withPlus(sender),
    to: receiver ? withPlus(receiver) : "",
    body: fields.text,
  };
}

export function createTextMagicAdapter(
  credentials: { apiKey: string; apiSecret: string },
  options: AdapterOptions,
): ProviderAdapter {
  const call = restClient(options, { "X-TM-Username": credentials.apiKey, "X-TM-Key": credentials.apiSecret }, textMagicError);

  return {
    kind: "textmagic",
    webhookAuth: "url-secret",

    // Delivery reports go to the account's callback URL (set once in TextMagic), so there is no per-message URL to pass.
    async send(message: OutboundMessage): Promise<SendResult> {
      const { body } = await call("POST", "/api/v2/messages", {
        text: message.body,
        phones: withoutPlus(message.to),
        from: senderForApi(message.from),
      });
      const id = text(body.messageId) ?? text(body.id);
      if (!id) throw acceptedWithoutId("TextMagic");
      return { providerMessageId: id, status: "queued" };
    },

    async findSent(): Promise<SentLookupResult> {
      return { kind: "cannot_tell", reason: "TextMagic is not asked: smsdesk does not look up TextMagic's message history yet" };
    },

    async listNumbers(): Promise<AvailableNumber[]> {
      const numbers: AvailableNumber[] = [];
      for (let page = 1; ; page++) {
        const { body } = await call("GET", `/api/v2/numbers?page=${page}&limit=${PAGE_SIZE}`);
        const rows = Array.isArray(body.resources) ? body.resources.map(record) : [];
        for (const row of rows) {
          const phone = text(row.phone);
          if (!phone) continue;
          const phoneNumber = withPlus(withoutPlus(phone));
          numbers.push({ phoneNumber, displayName: phoneNumber, capabilities: ["sms"] });
        }
        const pageCount = num(body.pageCount);
        if (!rows.length || pageCount === null || page >= pageCount) return numbers;
      }
    },

    async testConnection(): Promise<string> {
      const { body } = await call("GET", "/api/v2/user");
      const balance = num(body.balance);
      if (balance === null) return `Connected to TextMagic as ${str(body.username) ?? credentials.apiKey}`;
      const currency = str(record(body.currency).id) ?? str(body.currency) ?? "";
      return `Balance ${balance.toFixed(2)} ${currency}`.trim();
    },

    async parseWebhook(request: WebhookRequest): Promise<WebhookParseResult> {
      const event = eventFrom(await webhookFields(request));
      return { events: event ? [event] : [] };
    },
  };
}

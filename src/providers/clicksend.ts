import { basicAuth, errorFromStatus, retryAfterMs, type ProviderResponse } from "./http";
import { acceptedWithoutId, firstOf, num, record, restClient, str, text, webhookFields, withPlus } from "./rest-common";
import {
  ProviderError,
  type AdapterOptions,
  type AvailableNumber,
  type OutboundMessage,
  type ProviderAdapter,
  type SendResult,
  type WebhookEvent,
  type WebhookParseResult,
  type WebhookRequest,
  type SentLookupResult,
} from "./types";

/** The largest page /v3/numbers serves. */
const PAGE_SIZE = 100;

/** Per-message statuses of POST /v3/sms/send that mean ClickSend took the message. */
const ACCEPTED = new Set(["SUCCESS", "QUEUED"]);

/** What users read for the per-message refusals seen most; others show ClickSend's code. */
const REFUSALS: Record<string, string> = {
  INVALID_RECIPIENT: "The recipient number is invalid",
  COUNTRY_NOT_ENABLED: "Sending to this country is not enabled on the ClickSend account",
  INSUFFICIENT_CREDIT: "The ClickSend account has not enough credit",
  INVALID_SENDER_ID: "ClickSend does not allow this sender",
  BLOCKED: "ClickSend blocked the message",
  THROTTLED: "ClickSend refused an identical message sent to the same recipient moments ago",
};

/**
 * Receipt status codes (help.clicksend.com "SMS error codes"): 201 delivered to the handset; 200 queued or sent
 * to the network and 300 a temporary network error ClickSend retries, so neither is final and a later 201 can still
 * follow: both count as sent, since a failure here is final and would hide that delivery. 301 (and anything
 * else) is a failure.
 */
const IN_FLIGHT = new Set(["200", "300"]);

/** ClickSend's envelope `{http_code, response_code, response_msg, data}` on an error answer. */
export function clickSendError(res: ProviderResponse): ProviderError {
  const body = record(res.body);
  const status = res.status;
  const code = str(body.response_code) ?? `HTTP ${status}`;
  const message = str(body.response_msg) ?? `ClickSend answered HTTP ${status}`;
  if (status === 429 || code === "TOO_MANY_REQUESTS")
    return new ProviderError("rate_limited", code, message, status, retryAfterMs(res.headers));
  if (status >= 500) return errorFromStatus(res, code, message);
  if (status === 401 || code === "UNAUTHORIZED") return new ProviderError("auth", code, message, status);
  return errorFromStatus(res, code, message);
}

function eventFrom(fields: Record<string, unknown>): WebhookEvent | null {
  const id = text(fields.message_id);
  if (!id) return null;
  const statusCode = text(fields.status_code);
  if (statusCode) {
    if (statusCode === "201")
      return { type: "status", providerMessageId: id, status: "delivered", errorCode: null, errorMessage: null };
    if (IN_FLIGHT.has(statusCode))
      return { type: "status", providerMessageId: id, status: "sent", errorCode: null, errorMessage: null };
    return {
      type: "status",
      providerMessageId: id,
      status: "failed",
      errorCode: text(fields.error_code) ?? statusCode,
      errorMessage: str(fields.error_text) ?? str(fields.status_text),
    };
  }
  const from = text(fields.from);
  if (!from || typeof fields.body !== "string") return null;
  const to = text(fields.to);
  return { type: "inbound", providerMessageId: id, from: withPlus(from), to: to ? withPlus(to) : "", body: fields.body };
}

export function createClickSendAdapter(
  credentials: { apiKey: string; apiSecret: string },
  options: AdapterOptions,
): ProviderAdapter {
  const call = restClient(options, { Authorization: basicAuth(credentials.apiKey, credentials.apiSecret) }, clickSendError);

  return {
    kind: "clicksend",
    webhookAuth: "url-secret",

    // Receipts go to the account's receipt rule (an automation set up in ClickSend), so there is no per-message URL.
    async send(message: OutboundMessage): Promise<SendResult> {
      const { status: httpStatus, body } = await call("POST", "/v3/sms/send", {
        messages: [
          { to: message.to, body: message.body, from: message.from, source: "smsdesk", custom_string: message.reference },
        ],
      });
      const sent = firstOf(record(body.data).messages);
      // ClickSend answers 200 even when it refuses the message: the refusal is the message's own status.
      const status = str(sent.status);
      if (status && !ACCEPTED.has(status)) {
        throw new ProviderError("permanent", status, REFUSALS[status] ?? `ClickSend refused the message (${status})`, httpStatus);
      }
      const envelope = str(body.response_code);
      if (!status && envelope && envelope !== "SUCCESS") {
        throw new ProviderError("permanent", envelope, str(body.response_msg) ?? `ClickSend answered ${envelope}`, httpStatus);
      }
      const id = text(sent.message_id);
      if (!id) throw acceptedWithoutId("ClickSend");
      const parts = num(sent.message_parts);
      return { providerMessageId: id, status: "queued", ...(parts && parts > 0 ? { segments: parts } : {}) };
    },

    async findSent(): Promise<SentLookupResult> {
      return { kind: "cannot_tell", reason: "ClickSend is not asked: smsdesk does not look up ClickSend's message history yet" };
    },

    async listNumbers(): Promise<AvailableNumber[]> {
      const numbers: AvailableNumber[] = [];
      for (let page = 1; ; page++) {
        const { body } = await call("GET", `/v3/numbers?page=${page}&limit=${PAGE_SIZE}`);
        const data = record(body.data);
        const rows = Array.isArray(data.data) ? data.data.map(record) : [];
        for (const row of rows) {
          const dedicated = text(row.dedicated_number);
          if (!dedicated) continue;
          const phoneNumber = withPlus(dedicated.replace(/^\+/, ""));
          numbers.push({ phoneNumber, displayName: phoneNumber, capabilities: ["sms"] });
        }
        const lastPage = num(data.last_page);
        if (!rows.length || lastPage === null || page >= lastPage) return numbers;
      }
    },

    async testConnection(): Promise<string> {
      const data = record((await call("GET", "/v3/account")).body.data);
      const balance = num(data.balance);
      if (balance === null) return `Connected to ClickSend as ${str(data.username) ?? credentials.apiKey}`;
      const currency = str(record(data._currency).currency_name_short) ?? str(data.currency) ?? "";
      return `Balance ${balance.toFixed(2)} ${currency}`.trim();
    },

    async parseWebhook(request: WebhookRequest): Promise<WebhookParseResult> {
      const event = eventFrom(await webhookFields(request));
      return { events: event ? [event] : [] };
    },
  };
}

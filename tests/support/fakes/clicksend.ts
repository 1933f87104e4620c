/**
 * A local stand-in for ClickSend's REST API v3 (POST /v3/sms/send, GET /v3/numbers, GET /v3/account), plus
 * helpers that build the pushes ClickSend's automation rules post (delivery receipts and inbound messages,
 * unsigned; form-urlencoded by default, or JSON), for adapter and end-to-end tests.
 *
 *   const fake = await startClickSendFake({ numbers: ["+61411111111"] });
 *   const adapter = createClickSendAdapter(fake.credentials, { baseUrl: fake.url });
 *   fake.failNextRequests(1, { status: 429, retryAfter: 20 });
 *   fake.rejectRecipient("+61422222222", "COUNTRY_NOT_ENABLED");
 *   const { body, headers } = fake.webhook(clickSendReceipt({ messageId: id, statusCode: "201" }));
 *   afterAll(() => fake.stop());
 */
import { randomBytes, randomUUID } from "node:crypto";
import { SegmentedMessage } from "sms-segments-calculator";
import { readJsonRequest } from "./json-request";

export type ClickSendFakeRequest = {
  method: string;
  /** Path without the query, e.g. /v3/sms/send */
  path: string;
  query: Record<string, string>;
  /** The Authorization header as sent. */
  authorization: string | null;
  contentType: string | null;
  /** The body parsed as JSON; null when empty or not JSON. */
  json: unknown;
};

export type ClickSendFakeMessage = {
  messageId: string;
  to: string;
  body: string;
  from: string | null;
  source: string | null;
  customString: string | null;
  parts: number;
};

export type ClickSendFakeOptions = {
  username?: string;
  apiKey?: string;
  /** The dedicated numbers the account owns, E.164. */
  numbers?: string[];
  /** What /v3/account answers, as ClickSend does: a decimal string. */
  balance?: string;
  currency?: string;
  /** The largest page /v3/numbers serves, whatever `limit` asks (ClickSend: 100). */
  maxPageSize?: number;
  delayMs?: number;
};

/** Per-message statuses a recipient can be refused with, inside an HTTP 200 answer. */
export type ClickSendRefusal = "INVALID_RECIPIENT" | "COUNTRY_NOT_ENABLED" | "BLOCKED" | "INSUFFICIENT_CREDIT" | "THROTTLED";

const CURRENCY = (code: string) => ({
  currency_name_short: code,
  currency_prefix_d: "$",
  currency_prefix_c: "c",
  currency_name_long: code,
});

function envelope(httpCode: number, responseCode: string, responseMsg: string, data: unknown, headers?: Record<string, string>) {
  return Response.json(
    { http_code: httpCode, response_code: responseCode, response_msg: responseMsg, data },
    { status: httpCode, headers },
  );
}

/** A delivery receipt push: `status_code` 201 delivered, 200/300 not final, 301 failed (with an error_code). */
export function clickSendReceipt(p: {
  messageId: string;
  statusCode: "200" | "201" | "300" | "301" | string;
  statusText?: string;
  errorCode?: string;
  errorText?: string;
  customString?: string;
}) {
  const delivered = p.statusCode === "201";
  return {
    timestamp_send: "1748786400",
    timestamp: "1748786406",
    message_id: p.messageId,
    status_code: p.statusCode,
    status_text: p.statusText ?? (delivered ? "Success: Message received on handset." : "Failed: Unknown subscriber."),
    error_code: p.errorCode ?? (delivered ? "" : "8"),
    error_text: p.errorText ?? (delivered ? "" : "Unknown subscriber. Number is inactive or invalid"),
    custom_string: p.customString ?? "",
    user_id: "123456",
    subaccount_id: "123456",
    message_type: "sms",
  };
}

/** An inbound message push: a reply from `from` to the account's number `to`. */
export function clickSendInbound(p: { messageId?: string; from: string; to: string; body: string; originalMessageId?: string }) {
  return {
    timestamp: "1748786500",
    from: p.from,
    body: p.body,
    original_body: "Hello from Acme",
    original_message_id: p.originalMessageId ?? randomUUID().toUpperCase(),
    to: p.to,
    custom_string: "",
    message_id: p.messageId ?? randomUUID().toUpperCase(),
    _keyword: p.body.split(/\s+/)[0]!.toLowerCase(),
    user_id: "123456",
  };
}

/** A push as ClickSend posts it: form fields (the rules' default `post`) or JSON (`json`). */
export function clickSendWebhook(payload: Record<string, string>, format: "form" | "json" = "form") {
  if (format === "json") return { body: JSON.stringify(payload), headers: { "content-type": "application/json" } };
  return { body: new URLSearchParams(payload).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
}

export async function startClickSendFake(opts: ClickSendFakeOptions = {}) {
  const username = opts.username ?? "acme";
  const apiKey = opts.apiKey ?? randomBytes(18).toString("hex").toUpperCase();
  const numbers = [...(opts.numbers ?? [])];
  const account = { balance: opts.balance ?? "12.500000", currency: opts.currency ?? "USD" };
  const maxPageSize = opts.maxPageSize ?? 100;
  const requests: ClickSendFakeRequest[] = [];
  const messages: ClickSendFakeMessage[] = [];
  const refused = new Map<string, ClickSendRefusal>();
  const failures: { status: 429 | 500; retryAfter: number | null }[] = [];
  const expectedAuth = `Basic ${Buffer.from(`${username}:${apiKey}`).toString("base64")}`;

  function failure(): Response | null {
    const next = failures.shift();
    if (!next) return null;
    if (next.status === 500) return envelope(500, "INTERNAL_SERVER_ERROR", "An internal server error occurred.", null);
    const headers = next.retryAfter === null ? undefined : { "Retry-After": String(next.retryAfter) };
    return envelope(429, "TOO_MANY_REQUESTS", "Too many requests. Please slow down.", null, headers);
  }

  function sendOne(m: Record<string, unknown>) {
    const to = typeof m.to === "string" ? m.to : "";
    const body = typeof m.body === "string" ? m.body : "";
    const base = {
      direction: "out",
      date: Math.floor(Date.now() / 1000),
      to,
      body,
      from: typeof m.from === "string" ? m.from : "",
      schedule: "",
      message_id: randomUUID().toUpperCase(),
      message_price: "0.0000",
      custom_string: typeof m.custom_string === "string" ? m.custom_string : "",
      user_id: 123456,
      subaccount_id: 123456,
      country: "AU",
      carrier: "Telstra",
    };
    const refusal = !/^\+[1-9]\d{6,14}$/.test(to) ? "INVALID_RECIPIENT" : refused.get(to);
    if (refusal) return { ...base, message_parts: 0, status: refusal };
    const parts = new SegmentedMessage(body).segmentsCount;
    messages.push({
      messageId: base.message_id,
      to,
      body,
      from: base.from || null,
      source: typeof m.source === "string" ? m.source : null,
      customString: base.custom_string || null,
      parts,
    });
    return { ...base, message_parts: parts, message_price: "0.0792", status: "SUCCESS" };
  }

  function send(json: unknown): Response {
    const list = json && typeof json === "object" ? (json as Record<string, unknown>).messages : undefined;
    if (!Array.isArray(list) || !list.length) return envelope(400, "BAD_REQUEST", "messages is required.", null);
    if (list.some((m) => !m || typeof m !== "object" || typeof m.body !== "string" || !m.body)) {
      return envelope(400, "BAD_REQUEST", "body is required.", null);
    }
    const results = list.map((m) => sendOne(m as Record<string, unknown>));
    const queued = results.filter((r) => r.status === "SUCCESS").length;
    return envelope(200, "SUCCESS", "Messages queued for delivery.", {
      total_price: queued * 0.0792,
      total_count: results.length,
      queued_count: queued,
      messages: results,
      _currency: CURRENCY(account.currency),
    });
  }

  function listNumbers(query: URLSearchParams): Response {
    const limit = Math.min(Math.max(Number(query.get("limit")) || 15, 1), maxPageSize);
    const page = Math.max(Number(query.get("page")) || 1, 1);
    const lastPage = Math.max(Math.ceil(numbers.length / limit), 1);
    const slice = numbers.slice((page - 1) * limit, page * limit);
    return envelope(200, "SUCCESS", "Here are your numbers.", {
      total: numbers.length,
      per_page: limit,
      current_page: page,
      last_page: lastPage,
      next_page_url: page < lastPage ? `/?page=${page + 1}` : null,
      prev_page_url: page > 1 ? `/?page=${page - 1}` : null,
      from: slice.length ? (page - 1) * limit + 1 : null,
      to: slice.length ? (page - 1) * limit + slice.length : null,
      data: slice.map((n) => ({ dedicated_number: n, country: "AU", price_total: "0.00", _country_name: "Australia" })),
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const recorded = await readJsonRequest(req);
      const json = recorded.json;
      const authorization = req.headers.get("authorization");
      requests.push({ ...recorded, authorization });
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      const failed = failure();
      if (failed) return failed;
      if (authorization !== expectedAuth) return envelope(401, "UNAUTHORIZED", "Invalid username or API key.", null);
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /v3/sms/send") return send(json);
      if (route === "GET /v3/numbers") return listNumbers(url.searchParams);
      if (route === "GET /v3/account") {
        return envelope(200, "SUCCESS", "Here's your account", {
          user_id: 123456,
          username,
          user_email: "owner@acme.example",
          balance: account.balance,
          user_phone: "+61411111111",
          user_first_name: "Ada",
          user_last_name: "Owner",
          account: 654321,
          account_name: "Acme",
          country: "AU",
          default_country_sms: "AU",
          _currency: CURRENCY(account.currency),
        });
      }
      return envelope(404, "NOT_FOUND", "Resource not found.", null);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    username,
    apiKey,
    /** What an adapter needs to talk to this fake: apiKey is the username, apiSecret the API key. */
    credentials: { apiKey: username, apiSecret: apiKey },
    account,
    numbers,
    requests,
    messages,
    /** The next `count` requests (any endpoint) answer 429 TOO_MANY_REQUESTS (with Retry-After when given) or 500. */
    failNextRequests(count: number, failure: { status: 429 | 500; retryAfter?: number | null }) {
      for (let i = 0; i < count; i++) failures.push({ status: failure.status, retryAfter: failure.retryAfter ?? null });
    },
    /** Sends to `to` (E.164) answer HTTP 200 with this per-message status, as ClickSend does. */
    rejectRecipient(to: string, status: ClickSendRefusal) {
      refused.set(to, status);
    },
    /** The push ClickSend would post for `payload`. */
    webhook(payload: Record<string, string>, format: "form" | "json" = "form") {
      return clickSendWebhook(payload, format);
    },
    stop() {
      server.stop(true);
    },
  };
}

export type ClickSendFake = Awaited<ReturnType<typeof startClickSendFake>>;

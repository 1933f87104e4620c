/**
 * A local stand-in for TextMagic's REST API v2 (POST /api/v2/messages, GET /api/v2/numbers, GET /api/v2/user),
 * plus helpers that build the callbacks TextMagic posts (unsigned; JSON, form-urlencoded or multipart, as the
 * account's callback format says), for adapter and end-to-end tests.
 *
 *   const fake = await startTextMagicFake({ numbers: ["+447860021130"] });
 *   const adapter = createTextMagicAdapter(fake.credentials, { baseUrl: fake.url });
 *   fake.failNextRequests(1, { status: 429, retryAfter: 3 });
 *   fake.rejectRecipient("+447700900123", "Phone number is not a valid mobile number");
 *   const { body, headers } = await fake.webhook(textMagicDelivery({ id: 49575710, receiver: "+447700900001", status: "d" }));
 *   afterAll(() => fake.stop());
 */
import { randomBytes } from "node:crypto";

export type TextMagicFakeRequest = {
  method: string;
  /** Path without the query, e.g. /api/v2/messages */
  path: string;
  query: Record<string, string>;
  username: string | null;
  key: string | null;
  contentType: string | null;
  /** The body parsed as JSON or as form fields; null when empty or unreadable. */
  body: Record<string, unknown> | null;
};

export type TextMagicFakeMessage = { id: number; sessionId: number; text: string; phones: string; from: string | null };

export type TextMagicFakeOptions = {
  username?: string;
  apiKey?: string;
  /** The dedicated numbers the account owns, E.164. */
  numbers?: string[];
  balance?: number;
  currency?: string;
  /** The largest page /api/v2/numbers serves, whatever `limit` asks (TextMagic: 100). */
  maxPageSize?: number;
  delayMs?: number;
};

type ErrorFields = { common?: string[]; fields?: Record<string, string[]> };

function tmError(status: number, message: string, errors?: ErrorFields, headers?: Record<string, string>) {
  return Response.json({ code: status, message, ...(errors ? { errors } : {}) }, { status, headers });
}

/** A delivery callback, shaped like the outbound message resource TextMagic copies into it. */
export function textMagicDelivery(p: { id: number | string; receiver: string; status: string; sender?: string; text?: string }) {
  return {
    id: p.id,
    contactId: 0,
    sessionId: 34_000_000,
    receiver: p.receiver.replace(/^\+/, ""),
    messageTime: "2025-06-01T14:00:00+0000",
    status: p.status,
    text: p.text ?? "Hello from Acme",
    charset: "ISO-8859-1",
    firstName: "",
    lastName: "",
    country: "GB",
    sender: (p.sender ?? "447860021130").replace(/^\+/, ""),
    price: 0.04,
    partsCount: 1,
  };
}

/** An inbound message callback (`id, sender, receiver, messageTime, text`); numbers come without '+'. */
export function textMagicInbound(p: { id: number | string; sender: string; receiver: string; text: string }) {
  return {
    id: p.id,
    sender: p.sender.replace(/^\+/, ""),
    receiver: p.receiver.replace(/^\+/, ""),
    messageTime: "2025-06-01T14:00:00+0000",
    text: p.text,
  };
}

export type TextMagicCallbackFormat = "json" | "form" | "multipart";

/** A callback request as TextMagic posts it in the given format (its `format` setting: j, u or m). */
export async function textMagicWebhook(payload: Record<string, unknown>, format: TextMagicCallbackFormat = "json") {
  if (format === "json") return { body: JSON.stringify(payload), headers: { "content-type": "application/json" } };
  const entries = Object.entries(payload).map(([k, v]) => [k, String(v)] as [string, string]);
  if (format === "form") {
    return { body: new URLSearchParams(entries).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } };
  }
  const form = new FormData();
  for (const [k, v] of entries) form.append(k, v);
  const encoded = new Response(form);
  // Bun fills in the boundary header only if it is read before the body.
  const contentType = encoded.headers.get("content-type")!;
  return { body: await encoded.text(), headers: { "content-type": contentType } };
}

async function readBody(req: Request): Promise<Record<string, unknown> | null> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim();
  try {
    if (type === "application/json") return (await req.json()) as Record<string, unknown>;
    if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(await req.text()));
  } catch {
    return null;
  }
  return null;
}

export async function startTextMagicFake(opts: TextMagicFakeOptions = {}) {
  const username = opts.username ?? "acme";
  const apiKey = opts.apiKey ?? randomBytes(15).toString("base64url");
  const numbers = (opts.numbers ?? []).map((phone, i) => ({ id: 7000 + i, phone: phone.replace(/^\+/, "") }));
  const user = { balance: opts.balance ?? 12.5, currency: opts.currency ?? "USD" };
  const maxPageSize = opts.maxPageSize ?? 100;
  const requests: TextMagicFakeRequest[] = [];
  const messages: TextMagicFakeMessage[] = [];
  const refused = new Map<string, string>();
  const failures: { status: 429 | 500; retryAfter: number | null }[] = [];
  let nextId = 49_000_000 + Math.floor(Math.random() * 1_000_000);

  function failure(): Response | null {
    const next = failures.shift();
    if (!next) return null;
    if (next.status === 500) return tmError(500, "Internal Server Error");
    return tmError(
      429,
      "Too Many Requests",
      undefined,
      next.retryAfter === null ? undefined : { "Retry-After": String(next.retryAfter) },
    );
  }

  function send(body: Record<string, unknown> | null): Response {
    if (!body) return tmError(400, "Validation Failed", { common: ["The request body could not be read."] });
    const text = typeof body.text === "string" ? body.text : "";
    const phones = typeof body.phones === "string" ? body.phones : "";
    if (!text) return tmError(400, "Validation Failed", { common: ["You should specify either text or templateId."] });
    if (!phones) return tmError(400, "Validation Failed", { common: ["You should specify contacts, lists or phones."] });
    // TextMagic takes E.164 numbers without the leading '+', comma-separated.
    const list = phones.split(",");
    const bad = list.find((p) => !/^[1-9]\d{6,14}$/.test(p));
    if (bad !== undefined)
      return tmError(400, "Validation Failed", { fields: { phones: [`${bad} is not a valid phone number.`] } });
    const reason = list.map((p) => refused.get(p)).find((r) => r !== undefined);
    if (reason) return tmError(400, "Validation Failed", { fields: { phones: [reason] } });
    const id = nextId++;
    const sessionId = nextId++;
    messages.push({ id, sessionId, text, phones, from: typeof body.from === "string" ? body.from : null });
    return Response.json(
      {
        id,
        href: `/api/v2/messages/${id}`,
        type: "message",
        sessionId,
        bulkId: null,
        messageId: id,
        scheduleId: null,
        chatId: null,
      },
      { status: 201 },
    );
  }

  function listNumbers(query: URLSearchParams): Response {
    const limit = Math.min(Math.max(Number(query.get("limit")) || 10, 1), maxPageSize);
    const page = Math.max(Number(query.get("page")) || 1, 1);
    return Response.json({
      page,
      pageCount: Math.max(Math.ceil(numbers.length / limit), 1),
      limit,
      resources: numbers.slice((page - 1) * limit, page * limit).map((n) => ({
        id: n.id,
        user: { id: 1, username },
        purchasedAt: "2025-01-01T00:00:00+0000",
        expireAt: "2026-01-01T00:00:00+0000",
        phone: n.phone,
        country: { id: "GB", name: "United Kingdom" },
        status: "A",
      })),
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const body = await readBody(req);
      const sentUser = req.headers.get("x-tm-username");
      const sentKey = req.headers.get("x-tm-key");
      requests.push({
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        username: sentUser,
        key: sentKey,
        contentType: req.headers.get("content-type"),
        body,
      });
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      const failed = failure();
      if (failed) return failed;
      if (sentUser !== username || sentKey !== apiKey) return tmError(401, "Unauthorized");
      const route = `${req.method} ${url.pathname}`;
      if (route === "POST /api/v2/messages") return send(body);
      if (route === "GET /api/v2/numbers") return listNumbers(url.searchParams);
      if (route === "GET /api/v2/user") {
        return Response.json({
          id: 1,
          username,
          firstName: "Ada",
          lastName: "Owner",
          email: "owner@acme.example",
          status: "A",
          balance: user.balance,
          phone: "447860021130",
          company: "Acme",
          currency: { id: user.currency, unicodeSymbol: "$", htmlSymbol: "&#36;" },
          country: { id: "GB", name: "United Kingdom" },
          timezone: { id: 1, area: "Europe", dst: 1, offset: 0, timezone: "Europe/London" },
          subaccountType: "P",
          emailAccepted: true,
          phoneAccepted: true,
        });
      }
      return tmError(404, "Not Found");
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    username,
    apiKey,
    /** What an adapter needs to talk to this fake: apiKey is the username, apiSecret the API key. */
    credentials: { apiKey: username, apiSecret: apiKey },
    user,
    numbers,
    requests,
    messages,
    /** The next `count` requests (any endpoint) answer 429 (with Retry-After when given) or 500. */
    failNextRequests(count: number, failure: { status: 429 | 500; retryAfter?: number | null }) {
      for (let i = 0; i < count; i++) failures.push({ status: failure.status, retryAfter: failure.retryAfter ?? null });
    },
    /** Sends to `to` (E.164) answer 400 "Validation Failed" with this reason for `phones`. */
    rejectRecipient(to: string, reason: string) {
      refused.set(to.replace(/^\+/, ""), reason);
    },
    /** The callback TextMagic would post for `payload`, in the given format. */
    webhook(payload: Record<string, unknown>, format: TextMagicCallbackFormat = "json") {
      return textMagicWebhook(payload, format);
    },
    stop() {
      server.stop(true);
    },
  };
}

export type TextMagicFake = Awaited<ReturnType<typeof startTextMagicFake>>;

/**
 * A local stand-in for Twilio's 2010-04-01 REST API (Messages.json, IncomingPhoneNumbers.json, Accounts/{sid}.json),
 * plus helpers that sign webhooks the way Twilio does, for adapter and end-to-end tests.
 *
 *   const fake = await startTwilioFake({ numbers: [{ phoneNumber: "+14155550100" }] });
 *   const adapter = createTwilioAdapter(fake.credentials, { baseUrl: fake.url });
 *   fake.failNextSends(2, { status: 429, retryAfter: 3 });
 *   fake.rejectRecipient("+14155550199", 21610);
 *   fake.stallSends("accept"); // the next sends are accepted (or, "drop", never reach it) and never answered
 *   // As a campaign meets Twilio: 150-400 ms a send, 5% answered 429, a signed `sent` and `delivered` callback each.
 *   startTwilioFake({ sendLatencyMs: [150, 400], throttleRate: 0.05, statusCallbacks: { sentAfterMs: [50, 300], deliveredAfterMs: [500, 3000] } });
 *   afterAll(() => fake.stop());
 */
import { randomBytes } from "node:crypto";
import { SegmentedMessage } from "sms-segments-calculator";
import twilio from "twilio";

export type TwilioFakeNumber = {
  phoneNumber: string;
  friendlyName?: string;
  capabilities?: { sms?: boolean; mms?: boolean; voice?: boolean; fax?: boolean };
};

export type TwilioFakeRequest = {
  /** Arrival time (ms), for checking the sender's pace. */
  at: number;
  method: string;
  /** Path without the query, e.g. /2010-04-01/Accounts/AC.../Messages.json */
  path: string;
  query: Record<string, string>;
  /** The Basic auth user name (the Account SID), null without Basic auth. */
  authUser: string | null;
  contentType: string | null;
  /** The form body, parsed (a repeated key gives an array). */
  params: Record<string, string | string[]>;
};

export type TwilioFakeMessage = {
  sid: string;
  to: string;
  from: string | null;
  messagingServiceSid: string | null;
  body: string;
  statusCallback: string | null;
  numSegments: number;
  /** When the fake accepted it (ms, on the fake's clock): its date_created and date_sent. */
  createdAt: number;
  direction: "outbound-api";
  status: "queued" | "accepted";
  /** The MediaUrl values of an MMS, in order. */
  mediaUrls: string[];
};

/** What the fake got when it fetched a MediaUrl it was given, as Twilio does right after accepting an MMS. */
export type TwilioFakeFetch = { url: string; status: number; headers: Headers; bytes: Uint8Array };

export type TwilioFakeOptions = {
  accountSid?: string;
  authToken?: string;
  friendlyName?: string;
  accountStatus?: "active" | "suspended" | "closed";
  numbers?: TwilioFakeNumber[];
  /** The largest page IncomingPhoneNumbers.json serves, whatever PageSize asks (Twilio: 1000). */
  maxPageSize?: number;
  /** Delay before every answer, to exercise client timeouts. */
  delayMs?: number;
  /**
   * Twilio as a campaign meets it: each send answered after a time drawn between these (ms; Twilio takes 150 to
   * 400), on top of `delayMs`. The send is counted (`requests[].at`) when it arrives, as Twilio's rate limit counts.
   */
  sendLatencyMs?: [number, number];
  /** Share of sends answered 429 (code 20429) with Retry-After 1, at random, as Twilio does under load. */
  throttleRate?: number;
  /**
   * After each accepted send, two signed status callbacks to its StatusCallback URL, as Twilio posts them: `sent`
   * and then `delivered`, each after a time drawn between these (ms, from the acceptance and then from `sent`).
   */
  statusCallbacks?: { sentAfterMs: [number, number]; deliveredAfterMs: [number, number] };
  /** Draws for latencies, 429s and callbacks; Math.random by default. */
  random?: () => number;
  /** The fake's clock for date_created/date_sent (the appliance's test clock, when it runs one); Date.now by default. */
  now?: () => number;
};

/** Codes a recipient can be refused with: invalid number, region not enabled, opted out, not a mobile number. */
export type TwilioRecipientError = 21211 | 21408 | 21610 | 21614;

const RECIPIENT_ERRORS: Record<TwilioRecipientError, (to: string) => string> = {
  21211: (to) => `The 'To' number ${to} is not a valid phone number.`,
  21408: (to) => `Permission to send an SMS has not been enabled for the region indicated by the 'To' number: ${to}.`,
  21610: () => "Attempt to send to unsubscribed recipient",
  21614: (to) => `'To' number ${to} is not a valid mobile number`,
};

const sid = (prefix: string) => prefix + randomBytes(16).toString("hex");

function twilioError(status: number, code: number, message: string, headers?: Record<string, string>) {
  return Response.json({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status }, { status, headers });
}

function parseForm(text: string): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = params[key];
    params[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return params;
}

function basicUser(header: string | null): { user: string; password: string } | null {
  const match = /^Basic (.+)$/i.exec(header ?? "");
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function startTwilioFake(opts: TwilioFakeOptions = {}) {
  const accountSid = opts.accountSid ?? sid("AC");
  const authToken = opts.authToken ?? randomBytes(16).toString("hex");
  const account = { friendlyName: opts.friendlyName ?? "Fake Twilio Account", status: opts.accountStatus ?? "active" };
  const numbers: (TwilioFakeNumber & { sid: string })[] = (opts.numbers ?? []).map((n) => ({ ...n, sid: sid("PN") }));
  const maxPageSize = opts.maxPageSize ?? 1000;
  const requests: TwilioFakeRequest[] = [];
  const messages: TwilioFakeMessage[] = [];
  const refused = new Map<string, TwilioRecipientError>();
  const sendFailures: { status: 429 | 500; retryAfter: number | null }[] = [];
  const listFailures: number[] = [];
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const between = ([min, max]: [number, number]) => min + random() * (max - min);
  /** Status callbacks posted (or attempted): the appliance's answer, 0 when it could not be reached. */
  const callbacks: { sid: string; status: "sent" | "delivered"; answer: number }[] = [];
  /** Each MMS's fetches of its MediaUrls, by message sid. */
  const mediaFetches = new Map<string, Promise<TwilioFakeFetch[]>>();
  /** Media the fake hosts for inbound MMS, behind the account's Basic auth as Twilio's media URLs are. */
  const hosted = new Map<string, { bytes: Uint8Array; contentType: string }>();
  const pendingCallbacks = new Set<Promise<void>>();
  let stopped = false;
  let stall: "accept" | "drop" | null = null;
  /** Answers held by a stall, released (with a 503) when the fake stops. */
  const stalled: (() => void)[] = [];
  const base = `/2010-04-01/Accounts/${accountSid}`;

  function sendMessage(params: Record<string, string | string[]>): Response {
    const one = (name: string) => {
      const v = params[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const failure = sendFailures.shift() ?? (opts.throttleRate && random() < opts.throttleRate ? { status: 429 as const, retryAfter: 1 } : undefined);
    if (failure?.status === 429) {
      const headers = failure.retryAfter === null ? undefined : { "Retry-After": String(failure.retryAfter) };
      return twilioError(429, 20429, "Too Many Requests", headers);
    }
    if (failure?.status === 500) return twilioError(500, 20500, "An internal server error has occurred");
    const to = one("To");
    const from = one("From") ?? null;
    const messagingServiceSid = one("MessagingServiceSid") ?? null;
    const body = one("Body") ?? "";
    const media = params.MediaUrl;
    const mediaUrls = media === undefined ? [] : Array.isArray(media) ? media : [media];
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!from && !messagingServiceSid) return twilioError(400, 21603, "A 'From' phone number is required.");
    if (!body && !mediaUrls.length) return twilioError(400, 21602, "Message body is required.");
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return twilioError(400, 21211, RECIPIENT_ERRORS[21211](to));
    const refusal = refused.get(to);
    if (refusal) return twilioError(400, refusal, RECIPIENT_ERRORS[refusal](to));
    if (from && !numbers.some((n) => n.phoneNumber === from)) {
      return twilioError(
        400,
        21606,
        `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
      );
    }
    const message: TwilioFakeMessage = {
      sid: sid("SM"),
      to,
      from,
      messagingServiceSid,
      body,
      statusCallback: one("StatusCallback") ?? null,
      numSegments: new SegmentedMessage(body).segmentsCount,
      createdAt: now(),
      direction: "outbound-api",
      // A Messaging Service picks the sender later, so Twilio answers "accepted" rather than "queued".
      status: messagingServiceSid && !from ? "accepted" : "queued",
      mediaUrls,
    };
    messages.push(message);
    if (mediaUrls.length) mediaFetches.set(message.sid, Promise.all(mediaUrls.map(fetchMedia)));
    if (opts.statusCallbacks && message.statusCallback) track(postStatusCallbacks(message, opts.statusCallbacks));
    return Response.json(messageResource(message, false), { status: 201 });
  }

  /** Fetches a MediaUrl as Twilio does: a plain GET, no credentials (the URL's own signature is its credential). */
  async function fetchMedia(url: string): Promise<TwilioFakeFetch> {
    const res = await fetch(url.replace("//localhost:", "//127.0.0.1:"));
    return { url, status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  function track(p: Promise<void>) {
    pendingCallbacks.add(p);
    void p.finally(() => pendingCallbacks.delete(p));
  }

  /** `sent`, then `delivered`, each signed for the URL the send named, posted there. */
  async function postStatusCallbacks(m: TwilioFakeMessage, timing: NonNullable<TwilioFakeOptions["statusCallbacks"]>) {
    for (const [status, after] of [["sent", timing.sentAfterMs], ["delivered", timing.deliveredAfterMs]] as const) {
      await Bun.sleep(between(after));
      if (stopped) return;
      const url = m.statusCallback!;
      const params = twilioStatusParams({ accountSid, messageSid: m.sid, status, to: m.to, from: m.from ?? "" });
      let answer = 0;
      try {
        // Signed for the URL as given; reached on the loopback address a local listener answers on.
        const res = await fetch(url.replace("//localhost:", "//127.0.0.1:"), { method: "POST", ...signedTwilioWebhook(authToken, url, params) });
        answer = res.status;
        await res.arrayBuffer();
      } catch {
        answer = 0;
      }
      callbacks.push({ sid: m.sid, status, answer });
    }
  }

  /** A message as the API shows it; `listed`: as the list shows it later, sent (the fake sends at once). */
  function messageResource(m: TwilioFakeMessage, listed: boolean) {
    const created = new Date(m.createdAt).toUTCString();
    return {
      sid: m.sid,
      account_sid: accountSid,
      api_version: "2010-04-01",
      body: m.body,
      date_created: created,
      date_updated: created,
      date_sent: listed ? created : null,
      direction: m.direction,
      error_code: null,
      error_message: null,
      from: m.from,
      messaging_service_sid: m.messagingServiceSid,
      num_media: String(m.mediaUrls.length),
      num_segments: String(m.numSegments),
      price: null,
      price_unit: "USD",
      status: listed ? "sent" : m.status,
      subresource_uris: { media: `${base}/Messages/${m.sid}/Media.json` },
      to: m.to,
      uri: `${base}/Messages/${m.sid}.json`,
    };
  }

  /**
   * GET Messages.json as Twilio serves it: filtered by To, From and DateSent (a date or date-time; DateSent< and
   * DateSent> bound it), sorted by sent date with the most recent first, PageSize (at most 1000) per page, next
   * page by next_page_uri.
   */
  function listMessages(query: URLSearchParams): Response {
    const failure = listFailures.shift();
    if (failure === 429) return twilioError(429, 20429, "Too Many Requests", { "Retry-After": "1" });
    if (failure) return twilioError(500, 20500, "An internal server error has occurred");
    const to = query.get("To");
    const from = query.get("From");
    const day = (v: string | null) => (v === null ? null : Date.parse(/T/.test(v) ? v : `${v}T00:00:00Z`));
    const on = day(query.get("DateSent"));
    const before = day(query.get("DateSent<"));
    const after = day(query.get("DateSent>"));
    const matching = messages
      .filter((m) => (!to || m.to === to) && (!from || m.from === from))
      .filter((m) => (on === null || (m.createdAt >= on && m.createdAt < on + 86_400_000)) && (before === null || m.createdAt <= before) && (after === null || m.createdAt >= after))
      .sort((a, b) => b.createdAt - a.createdAt);
    const pageSize = Math.min(Math.max(Number(query.get("PageSize")) || 50, 1), 1000);
    const page = Math.max(Number(query.get("Page")) || 0, 0);
    const start = page * pageSize;
    const slice = matching.slice(start, start + pageSize);
    const filters = [...query].filter(([k]) => k !== "Page" && k !== "PageSize" && k !== "PageToken");
    const pageUri = (p: number) => `${base}/Messages.json?${new URLSearchParams([...filters, ["PageSize", String(pageSize)], ["Page", String(p)]])}`;
    return Response.json({
      messages: slice.map((m) => messageResource(m, true)),
      page,
      page_size: pageSize,
      start,
      end: start + Math.max(slice.length - 1, 0),
      uri: pageUri(page),
      first_page_uri: pageUri(0),
      previous_page_uri: page > 0 ? `${pageUri(page - 1)}&PageToken=PB${start}` : null,
      next_page_uri: start + pageSize < matching.length ? `${pageUri(page + 1)}&PageToken=PA${start + pageSize}` : null,
    });
  }

  function listNumbers(query: URLSearchParams): Response {
    const pageSize = Math.min(Math.max(Number(query.get("PageSize")) || 50, 1), maxPageSize);
    const page = Math.max(Number(query.get("Page")) || 0, 0);
    const start = page * pageSize;
    const slice = numbers.slice(start, start + pageSize);
    const pageUri = (p: number) => `${base}/IncomingPhoneNumbers.json?PageSize=${pageSize}&Page=${p}`;
    const hasNext = start + pageSize < numbers.length;
    return Response.json({
      incoming_phone_numbers: slice.map((n) => ({
        sid: n.sid,
        account_sid: accountSid,
        phone_number: n.phoneNumber,
        friendly_name: n.friendlyName ?? n.phoneNumber,
        capabilities: { voice: false, sms: false, mms: false, fax: false, ...n.capabilities },
        status: "in-use",
        sms_url: "",
        status_callback: "",
        uri: `${base}/IncomingPhoneNumbers/${n.sid}.json`,
      })),
      page,
      page_size: pageSize,
      start,
      end: start + Math.max(slice.length - 1, 0),
      uri: pageUri(page),
      first_page_uri: pageUri(0),
      previous_page_uri: page > 0 ? `${pageUri(page - 1)}&PageToken=PB${start}` : null,
      next_page_uri: hasNext ? `${pageUri(page + 1)}&PageToken=PA${start + pageSize}` : null,
    });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const text = await req.text();
      const contentType = req.headers.get("content-type");
      const auth = basicUser(req.headers.get("authorization"));
      const record: TwilioFakeRequest = {
        at: Date.now(),
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authUser: auth?.user ?? null,
        contentType,
        params: contentType?.startsWith("application/x-www-form-urlencoded") ? parseForm(text) : {},
      };
      requests.push(record);
      if (opts.delayMs) await Bun.sleep(opts.delayMs);
      if (opts.sendLatencyMs && req.method === "POST" && url.pathname === `${base}/Messages.json`) await Bun.sleep(between(opts.sendLatencyMs));
      if (!auth || auth.user !== accountSid || auth.password !== authToken) return twilioError(401, 20003, "Authenticate");
      const route = `${req.method} ${url.pathname}`;
      const file = req.method === "GET" ? hosted.get(url.pathname) : undefined;
      if (file) return new Response(file.bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": file.contentType } });
      if (route === `POST ${base}/Messages.json`) {
        if (!stall) return sendMessage(record.params);
        // A send cut off mid-call: accepted (or not) by the provider, its answer never coming back.
        if (stall === "accept") sendMessage(record.params);
        await new Promise<void>((resolve) => stalled.push(resolve));
        return twilioError(503, 20503, "Service unavailable");
      }
      if (route === `GET ${base}/Messages.json`) return listMessages(url.searchParams);
      if (route === `GET ${base}/IncomingPhoneNumbers.json`) return listNumbers(url.searchParams);
      if (route === `GET ${base}.json`) {
        return Response.json({
          sid: accountSid,
          owner_account_sid: accountSid,
          friendly_name: account.friendlyName,
          status: account.status,
          type: "Full",
          date_created: new Date(0).toUTCString(),
          uri: `${base}.json`,
        });
      }
      return twilioError(404, 20404, `The requested resource ${url.pathname} was not found`);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    accountSid,
    authToken,
    /** What an adapter needs to talk to this fake. */
    credentials: { accountSid, authToken },
    account,
    numbers,
    requests,
    messages,
    callbacks,
    /** What the fake fetched from each MediaUrl of the MMS `sid`, once fetched. */
    fetchedMedia(sid: string): Promise<TwilioFakeFetch[]> {
      return mediaFetches.get(sid) ?? Promise.resolve([]);
    },
    /** Fetches a URL the way Twilio fetches a MediaUrl (to try one again later, expired). */
    fetchMedia,
    /** Hosts a file for an inbound MMS: answers its MediaUrl, served only with the account's Basic auth. */
    hostMedia(bytes: Uint8Array, contentType: string, at?: string): string {
      const path = at ? new URL(at).pathname : `${base}/Messages/${sid("MM")}/Media/${sid("ME")}`;
      hosted.set(path, { bytes, contentType });
      return `http://127.0.0.1:${server.port}${path}`;
    },
    /** Waits for the status callbacks under way. */
    async settleCallbacks() {
      while (pendingCallbacks.size) await Promise.all([...pendingCallbacks]);
    },
    /** The next `count` sends answer 429 (code 20429, with Retry-After unless null) or 500 (code 20500). */
    failNextSends(count: number, failure: { status: 429 | 500; retryAfter?: number | null }) {
      for (let i = 0; i < count; i++) sendFailures.push({ status: failure.status, retryAfter: failure.retryAfter ?? null });
    },
    /** Sends to `to` answer 400 with this Twilio code (21610 opted out, 21211 invalid number...). */
    rejectRecipient(to: string, code: TwilioRecipientError) {
      refused.set(to, code);
    },
    /** The next `count` message lists (lookups) answer 500 (or 429 with Retry-After 1). */
    failNextLists(count: number, status: 429 | 500 = 500) {
      for (let i = 0; i < count; i++) listFailures.push(status);
    },
    /**
     * From now on each send is held unanswered (until the fake stops): "accept" records the message first (Twilio
     * accepted it, the answer was lost), "drop" does not (the request never got through); null answers again.
     */
    stallSends(mode: "accept" | "drop" | null) {
      stall = mode;
    },
    /** A signed webhook as Twilio would post it to `url` (the full public URL, query included). */
    webhook(url: string, params: Record<string, string>) {
      return signedTwilioWebhook(authToken, url, params);
    },
    stop() {
      stopped = true;
      for (const release of stalled.splice(0)) release();
      server.stop(true);
    },
  };
}

export type TwilioFake = Awaited<ReturnType<typeof startTwilioFake>>;

/** The X-Twilio-Signature Twilio sends for a form POST of `params` to `url`. */
export function signTwilioWebhook(authToken: string, url: string, params: Record<string, string | string[]>): string {
  return twilio.getExpectedTwilioSignature(authToken, url, params);
}

/** A form-encoded webhook request, signed, ready to POST: `fetch(url, { method: "POST", ...signedTwilioWebhook(...) })`. */
export function signedTwilioWebhook(authToken: string, url: string, params: Record<string, string>) {
  return {
    body: new URLSearchParams(params).toString(),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": signTwilioWebhook(authToken, url, params),
    },
  };
}

/**
 * A JSON-body webhook the way Twilio signs one: the body's SHA-256 goes into the URL as `bodySHA256` and the
 * signature covers that URL with no params. Returns the URL to call along with the request.
 */
export function signedTwilioJsonWebhook(authToken: string, url: string, payload: Record<string, unknown>) {
  const body = JSON.stringify(payload);
  const signedUrl = `${url}${url.includes("?") ? "&" : "?"}bodySHA256=${twilio.getExpectedBodyHash(body)}`;
  return {
    url: signedUrl,
    body,
    headers: { "content-type": "application/json", "x-twilio-signature": signTwilioWebhook(authToken, signedUrl, {}) },
  };
}

/** The params of a status callback for an outbound message. */
export function twilioStatusParams(p: {
  accountSid: string;
  messageSid: string;
  status: "queued" | "sending" | "sent" | "delivered" | "undelivered" | "failed" | "read";
  to: string;
  from: string;
  errorCode?: string;
}): Record<string, string> {
  return {
    AccountSid: p.accountSid,
    ApiVersion: "2010-04-01",
    From: p.from,
    MessageSid: p.messageSid,
    MessageStatus: p.status,
    SmsSid: p.messageSid,
    SmsStatus: p.status,
    To: p.to,
    ...(p.errorCode ? { ErrorCode: p.errorCode } : {}),
  };
}

/** The params of an inbound message webhook (`media` become NumMedia + MediaUrlN + MediaContentTypeN). */
export function twilioInboundParams(p: {
  accountSid: string;
  from: string;
  to: string;
  body: string;
  messageSid?: string;
  media?: string[];
  messagingServiceSid?: string;
}): Record<string, string> {
  const messageSid = p.messageSid ?? sid(p.media?.length ? "MM" : "SM");
  const params: Record<string, string> = {
    AccountSid: p.accountSid,
    ApiVersion: "2010-04-01",
    Body: p.body,
    From: p.from,
    FromCountry: "US",
    MessageSid: messageSid,
    NumMedia: String(p.media?.length ?? 0),
    NumSegments: String(new SegmentedMessage(p.body).segmentsCount),
    SmsMessageSid: messageSid,
    SmsSid: messageSid,
    SmsStatus: "received",
    To: p.to,
    ToCountry: "US",
  };
  if (p.messagingServiceSid) params.MessagingServiceSid = p.messagingServiceSid;
  p.media?.forEach((url, i) => {
    params[`MediaUrl${i}`] = url;
    params[`MediaContentType${i}`] = "image/jpeg";
  });
  return params;
}

/**
 * A local stand-in for the parts of Twilio's Messaging API (messaging.twilio.com/v1) that say whether a number may
 * send to US phones: A2P brand registrations, Messaging Services with their phone numbers and A2P campaign
 * (Compliance/Usa2p), and toll-free verifications. Field names and enums follow twilio-node's rest/messaging/v1
 * resources; list pages carry their items under `meta.key`, with absolute `next_page_url`s on Twilio's own host.
 *
 *   const fake = await startTwilioRegistrationFake({
 *     brands: [{ sid: "BN1", status: "APPROVED" }],
 *     services: [{ sid: "MG1", friendlyName: "Shop", numbers: ["+14155550100"], campaign: { brandSid: "BN1", status: "VERIFIED" } }],
 *     tollFree: [{ sid: "HH1", phoneNumber: "+18445550100", status: "TWILIO_REJECTED", rejectionReason: "..." }],
 *   });
 *   // TWILIO_API_BASE=fake.url; the account's credentials: fake.credentials
 */

/**
 * A review error as Twilio's OpenAPI examples list them on a brand and on an A2P campaign (twilio/twilio-oai
 * spec/json/twilio_messaging_v1.json): `{error_code, description, fields, url}`; the fake adds the url.
 */
export type FakeReviewError = { error_code: number; description: string; fields?: string[] };
export type FakeBrand = {
  sid: string;
  status: "PENDING" | "APPROVED" | "FAILED" | "IN_REVIEW" | "SUSPENDED";
  /** The deprecated single reason, still sent beside errors. */
  failureReason?: string;
  errors?: FakeReviewError[];
};
export type FakeCampaign = {
  brandSid: string;
  status: "IN_PROGRESS" | "VERIFIED" | "FAILED" | "PENDING";
  usecase?: string;
  /** Review errors of a FAILED campaign, as Twilio lists them. */
  errors?: FakeReviewError[];
  rateLimits?: Record<string, Record<string, string>>;
};
export type FakeService = { sid: string; friendlyName: string; numbers: string[]; campaign?: FakeCampaign };
export type FakeTollFree = {
  sid: string;
  phoneNumber: string;
  status: "PENDING_REVIEW" | "IN_REVIEW" | "TWILIO_APPROVED" | "TWILIO_REJECTED";
  rejectionReason?: string;
  errorCode?: number;
  businessName?: string;
};

export type TwilioRegistrationFakeOptions = {
  accountSid?: string;
  authToken?: string;
  brands?: FakeBrand[];
  services?: FakeService[];
  tollFree?: FakeTollFree[];
  /** The largest page any list serves (Twilio: PageSize up to 1000). */
  maxPageSize?: number;
};

const ORIGIN = "https://messaging.twilio.com";

const reviewErrorJson = (e: FakeReviewError) => ({
  error_code: e.error_code,
  fields: e.fields ?? [],
  url: `https://www.twilio.com/docs/api/errors/${e.error_code}`,
  description: e.description,
});

/** The fake as a fetch handler, to serve with Bun.serve (startTwilioRegistrationFake) or node:http (serveOnNode). */
export function twilioRegistrationApi(opts: TwilioRegistrationFakeOptions = {}) {
  const accountSid = opts.accountSid ?? `AC${"1".repeat(32)}`;
  const authToken = opts.authToken ?? "registration-token";
  const state = { brands: opts.brands ?? [], services: opts.services ?? [], tollFree: opts.tollFree ?? [] };
  const requests: { method: string; path: string; query: Record<string, string> }[] = [];
  /** `failing`: every request answers 500 (code 20500) until it is cleared. */
  const control = { failing: false };
  const expectedAuth = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`;
  const date = (i: number) => new Date(Date.UTC(2026, 0, 1 + i)).toUTCString();

  /** One page of a list, the way Twilio's v1 APIs answer it. */
  function page(url: URL, key: string, items: unknown[]) {
    const size = Math.min(Number(url.searchParams.get("PageSize") ?? 50) || 50, opts.maxPageSize ?? 1000);
    const n = Number(url.searchParams.get("Page") ?? 0) || 0;
    const slice = items.slice(n * size, (n + 1) * size);
    const at = (p: number) => `${ORIGIN}${url.pathname}?PageSize=${size}&Page=${p}`;
    return Response.json({
      [key]: slice,
      meta: {
        page: n,
        page_size: size,
        first_page_url: at(0),
        previous_page_url: n > 0 ? at(n - 1) : null,
        url: at(n),
        next_page_url: (n + 1) * size < items.length ? at(n + 1) : null,
        key,
      },
    });
  }

  const brandJson = (b: FakeBrand, i: number) => ({
    sid: b.sid,
    account_sid: accountSid,
    customer_profile_bundle_sid: "BU" + "0".repeat(32),
    a2p_profile_bundle_sid: "BU" + "1".repeat(32),
    date_created: date(i),
    date_updated: date(i),
    brand_type: "STANDARD",
    status: b.status,
    tcr_id: `B${b.sid.slice(-6).toUpperCase()}`,
    failure_reason: b.failureReason ?? null,
    errors: (b.errors ?? []).map(reviewErrorJson),
    identity_status: b.status === "APPROVED" ? "VERIFIED" : "UNVERIFIED",
    mock: false,
  });

  return {
    credentials: { accountSid, authToken },
    state,
    requests,
    control,
    fetch(req: Request): Response {
      const url = new URL(req.url);
      requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams) });
      if (control.failing) return Response.json({ code: 20500, message: "Internal Server Error", status: 500 }, { status: 500 });
      if (req.headers.get("authorization") !== expectedAuth)
        return Response.json({ code: 20003, message: "Authenticate", more_info: "https://www.twilio.com/docs/errors/20003", status: 401 }, { status: 401 });
      if (req.method !== "GET") return Response.json({ code: 20004, message: "Method not allowed", status: 405 }, { status: 405 });
      const path = url.pathname;
      if (path === "/v1/a2p/BrandRegistrations") return page(url, "data", state.brands.map(brandJson));
      if (path === "/v1/Services")
        return page(
          url,
          "services",
          state.services.map((s) => ({ sid: s.sid, account_sid: accountSid, friendly_name: s.friendlyName, us_app_to_person_registered: s.campaign?.status === "VERIFIED" })),
        );
      if (path === "/v1/Tollfree/Verifications")
        return page(
          url,
          "verifications",
          state.tollFree.map((v, i) => ({
            sid: v.sid,
            account_sid: accountSid,
            tollfree_phone_number_sid: `PN${String(i).padStart(32, "0")}`,
            tollfree_phone_number: v.phoneNumber,
            business_name: v.businessName ?? "Acme Shop",
            status: v.status,
            rejection_reason: v.rejectionReason ?? null,
            error_code: v.errorCode ?? null,
            edit_allowed: v.status === "TWILIO_REJECTED",
            date_created: date(i),
            date_updated: date(i),
          })),
        );
      const m = /^\/v1\/Services\/([^/]+)\/(PhoneNumbers|Compliance\/Usa2p)$/.exec(path);
      const service = m && state.services.find((s) => s.sid === m[1]);
      if (m && !service) return Response.json({ code: 20404, message: `The requested resource ${path} was not found`, status: 404 }, { status: 404 });
      if (service && m![2] === "PhoneNumbers")
        return page(
          url,
          "phone_numbers",
          service.numbers.map((n, i) => ({ sid: `PN${service.sid.slice(-4)}${String(i).padStart(28, "0")}`, service_sid: service.sid, phone_number: n, country_code: "US", capabilities: ["SMS"] })),
        );
      if (service) {
        const c = service.campaign;
        return page(
          url,
          "compliance",
          c
            ? [
                {
                  sid: "QE" + service.sid.slice(2).padEnd(32, "0").slice(0, 32),
                  brand_registration_sid: c.brandSid,
                  messaging_service_sid: service.sid,
                  us_app_to_person_usecase: c.usecase ?? "MARKETING",
                  campaign_status: c.status,
                  campaign_id: c.status === "VERIFIED" ? `C${service.sid.slice(-6).toUpperCase()}` : null,
                  errors: (c.errors ?? []).map(reviewErrorJson),
                  rate_limits: c.rateLimits ?? {},
                  message_samples: ["Acme: 20% off today. Reply STOP to opt out."],
                },
              ]
            : [],
        );
      }
      return Response.json({ code: 20404, message: `The requested resource ${path} was not found`, status: 404 }, { status: 404 });
    },
  };
}

export async function startTwilioRegistrationFake(opts: TwilioRegistrationFakeOptions = {}) {
  const api = twilioRegistrationApi(opts);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => api.fetch(req) });
  return { ...api, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export type TwilioRegistrationFake = Awaited<ReturnType<typeof startTwilioRegistrationFake>>;

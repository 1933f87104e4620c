/**
 * A local stand-in for Telnyx's 10DLC API (brands, campaigns, phone number to campaign assignments) and its
 * toll-free verification requests, from the public API reference (developers.telnyx.com): the 10DLC API answers
 * camelCase `records` pages (page, totalRecords), the toll-free one `records` with `total_records`.
 *
 *   const fake = await startTelnyxRegistrationFake({
 *     brands: [{ brandId: "B1", displayName: "Acme", status: "OK" }],
 *     campaigns: [{ campaignId: "C1", brandId: "B1", campaignStatus: "MNO_PROVISIONED" }],
 *     assignments: [{ phoneNumber: "+14155550100", campaignId: "C1", assignmentStatus: "ASSIGNED" }],
 *     tollFree: [{ id: "uuid", phoneNumber: "+18885550100", verificationStatus: "Verified" }],
 *   });
 */

export type TelnyxFakeBrand = { brandId: string; displayName: string; status: "OK" | "REGISTRATION_PENDING" | "REGISTRATION_FAILED"; failureReasons?: string };
export type TelnyxFakeCampaign = { campaignId: string; tcrCampaignId?: string; brandId: string; campaignStatus: string; usecase?: string; failureReasons?: string };
export type TelnyxFakeAssignment = {
  phoneNumber: string;
  campaignId: string;
  assignmentStatus: "FAILED_ASSIGNMENT" | "PENDING_ASSIGNMENT" | "ASSIGNED" | "PENDING_UNASSIGNMENT" | "FAILED_UNASSIGNMENT";
  failureReasons?: string;
};
export type TelnyxFakeTollFree = {
  id: string;
  phoneNumber: string;
  verificationStatus: "Verified" | "Rejected" | "Waiting For Vendor" | "Waiting For Customer" | "Waiting For Telnyx" | "In Progress";
  reason?: string;
  businessName?: string;
};

export type TelnyxRegistrationFakeOptions = {
  apiKey?: string;
  brands?: TelnyxFakeBrand[];
  campaigns?: TelnyxFakeCampaign[];
  assignments?: TelnyxFakeAssignment[];
  tollFree?: TelnyxFakeTollFree[];
};

/** The fake as a fetch handler, to serve with Bun.serve (startTelnyxRegistrationFake) or node:http (serveOnNode). */
export function telnyxRegistrationApi(opts: TelnyxRegistrationFakeOptions = {}) {
  const apiKey = opts.apiKey ?? "KEY_registration_fake";
  const state = { brands: opts.brands ?? [], campaigns: opts.campaigns ?? [], assignments: opts.assignments ?? [], tollFree: opts.tollFree ?? [] };
  const requests: { method: string; path: string; query: Record<string, string> }[] = [];
  const error = (status: number, code: string, title: string, detail: string) => Response.json({ errors: [{ code, title, detail }] }, { status });

  function tenDlcPage(url: URL, items: unknown[]) {
    const size = Number(url.searchParams.get("recordsPerPage") ?? 20) || 20;
    const page = Number(url.searchParams.get("page") ?? 1) || 1;
    return Response.json({ page, totalRecords: items.length, records: items.slice((page - 1) * size, page * size) });
  }

  return {
    credentials: { apiKey, publicKey: Buffer.alloc(32, 7).toString("base64") },
    state,
    requests,
    fetch(req: Request): Response {
      const url = new URL(req.url);
      requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams) });
      if (req.headers.get("authorization") !== `Bearer ${apiKey}`) return error(401, "10009", "Authentication failed", "The required authentication headers were either invalid or not included in the request.");
      const path = url.pathname;
      if (req.method === "GET" && path === "/v2/10dlc/brand")
        return tenDlcPage(
          url,
          state.brands.map((b) => ({ brandId: b.brandId, tcrBrandId: `B${b.brandId.slice(-6)}`, displayName: b.displayName, entityType: "PRIVATE_PROFIT", identityStatus: b.status === "OK" ? "VERIFIED" : "UNVERIFIED", status: b.status, failureReasons: b.failureReasons ?? null })),
        );
      if (req.method === "GET" && path === "/v2/10dlc/phone_number_campaigns")
        return tenDlcPage(
          url,
          state.assignments.map((a) => ({
            phoneNumber: a.phoneNumber,
            campaignId: a.campaignId,
            brandId: state.campaigns.find((c) => c.campaignId === a.campaignId)?.brandId ?? null,
            tcrCampaignId: state.campaigns.find((c) => c.campaignId === a.campaignId)?.tcrCampaignId ?? null,
            assignmentStatus: a.assignmentStatus,
            failureReasons: a.failureReasons ?? null,
            createdAt: "2026-01-01T00:00:00Z",
            updatedAt: "2026-01-01T00:00:00Z",
          })),
        );
      const campaign = /^\/v2\/10dlc\/campaign\/([^/]+)$/.exec(path);
      if (req.method === "GET" && campaign) {
        const c = state.campaigns.find((x) => x.campaignId === decodeURIComponent(campaign[1]!));
        if (!c) return error(404, "10005", "Resource not found", "The requested resource or URL could not be found.");
        return Response.json({ campaignId: c.campaignId, brandId: c.brandId, usecase: c.usecase ?? "MARKETING", campaignStatus: c.campaignStatus, failureReasons: c.failureReasons ?? null, sample1: "Acme: 20% off today. Reply STOP to opt out." });
      }
      if (req.method === "GET" && path === "/v2/messaging_tollfree/verification/requests") {
        const size = Number(url.searchParams.get("page_size") ?? 0);
        const page = Number(url.searchParams.get("page") ?? 0);
        if (!size || !page) return error(422, "10015", "Bad Request", "page and page_size are required");
        const all = state.tollFree.map((v) => ({
          id: v.id,
          businessName: v.businessName ?? "Acme Shop",
          phoneNumbers: [{ phoneNumber: v.phoneNumber }],
          verificationStatus: v.verificationStatus,
          reason: v.reason ?? null,
          createdAt: "2026-01-01T00:00:00Z",
          updatedAt: "2026-01-02T00:00:00Z",
        }));
        return Response.json({ records: all.slice((page - 1) * size, page * size), total_records: all.length });
      }
      return error(404, "10005", "Resource not found", "The requested resource or URL could not be found.");
    },
  };
}

export async function startTelnyxRegistrationFake(opts: TelnyxRegistrationFakeOptions = {}) {
  const api = telnyxRegistrationApi(opts);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => api.fetch(req) });
  return { ...api, url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export type TelnyxRegistrationFake = Awaited<ReturnType<typeof startTelnyxRegistrationFake>>;

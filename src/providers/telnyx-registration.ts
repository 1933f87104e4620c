import type { RegistrationFinding, RegistrationQuery } from "./types";

/**
 * 10DLC and toll-free verification as Telnyx holds them (issue 34 item 1). A local number is registered when
 * /v2/10dlc/phone_number_campaigns has it ASSIGNED to a campaign the carriers provisioned (/v2/10dlc/campaign/{id}
 * campaignStatus MNO_PROVISIONED) under a brand (/v2/10dlc/brand) that did not fail; a toll-free number when its
 * /v2/messaging_tollfree/verification/requests entry is Verified. The 10DLC API answers camelCase `records` pages
 * (page, recordsPerPage, totalRecords); the toll-free one `records` with `total_records`.
 * (developers.telnyx.com: Phone Number Campaigns, Campaigns, Brands and Toll-free Verification API references.)
 */

type Row = Record<string, unknown>;
type Get = (path: string) => Promise<Row>;
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);
const records = (body: Row): Row[] => (Array.isArray(body.records) ? (body.records as Row[]) : []);
const words = (s: string) => s.replace(/_/g, " ").toLowerCase();

const PAGE = 100;
const MAX_PAGES = 50;

/** Campaign statuses the carriers refused or ended; MNO_PROVISIONED is the one that sends. */
const CAMPAIGN_REFUSED = new Set(["TCR_FAILED", "TELNYX_FAILED", "MNO_REJECTED", "MNO_PROVISIONING_FAILED", "TCR_SUSPENDED", "TCR_EXPIRED"]);

function reasonText(v: unknown): string | null {
  if (typeof v === "string") return str(v);
  if (Array.isArray(v)) {
    const parts = v.map((e) => (typeof e === "string" ? e : str((e as Row)?.description) ?? str((e as Row)?.reason) ?? null)).filter(Boolean);
    return parts.length ? parts.join("; ") : null;
  }
  return null;
}

async function pages(get: Get, path: (page: number) => string, total: (body: Row) => number): Promise<Row[]> {
  const out: Row[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const body = await get(path(page));
    const rows = records(body);
    out.push(...rows);
    if (!rows.length || out.length >= total(body)) break;
  }
  return out;
}

export async function readTelnyxRegistrations(get: Get, numbers: RegistrationQuery[]): Promise<Map<string, RegistrationFinding>> {
  const found = new Map<string, RegistrationFinding>();
  const local = numbers.filter((n) => n.program === "10dlc").map((n) => n.phoneNumber);
  const tollFree = numbers.filter((n) => n.program === "toll_free").map((n) => n.phoneNumber);

  if (local.length) {
    const totalOf = (b: Row) => Number(b.totalRecords ?? 0);
    const brands = await pages(get, (p) => `/v2/10dlc/brand?page=${p}&recordsPerPage=${PAGE}`, totalOf);
    const assignments = await pages(get, (p) => `/v2/10dlc/phone_number_campaigns?page=${p}&recordsPerPage=${PAGE}`, totalOf);
    const campaigns = new Map<string, Row>();
    for (const number of local) {
      const a = assignments.find((r) => r.phoneNumber === number);
      if (!a) {
        const brandFailed = brands.find((b) => b.status === "REGISTRATION_FAILED");
        const reason = !brands.length
          ? "No 10DLC brand is registered on this Telnyx account, and the number is assigned to no campaign"
          : brandFailed
            ? `The number is assigned to no 10DLC campaign; brand '${brandFailed.displayName ?? brandFailed.brandId}' failed registration`
            : "The number is assigned to no 10DLC campaign";
        found.set(number, { state: "unregistered", reason, detail: null });
        continue;
      }
      const campaignId = str(a.campaignId);
      let campaign = campaignId ? campaigns.get(campaignId) : undefined;
      if (campaignId && !campaign) campaigns.set(campaignId, (campaign = await get(`/v2/10dlc/campaign/${encodeURIComponent(campaignId)}`)));
      const brand = brands.find((b) => b.brandId === (a.brandId ?? campaign?.brandId));
      const detail = [
        brand ? `Brand '${brand.displayName ?? brand.brandId}'` : a.brandId ? `Brand ${a.brandId}` : null,
        `campaign ${str(a.tcrCampaignId) ?? campaignId}${campaign?.usecase ? ` (${campaign.usecase})` : ""}`,
      ]
        .filter(Boolean)
        .join(", ");
      const assignment = str(a.assignmentStatus);
      const status = str(campaign?.campaignStatus);
      if (brand?.status === "REGISTRATION_FAILED") {
        found.set(number, { state: "rejected", reason: `Brand: ${reasonText(brand.failureReasons) ?? "registration failed"}`, detail });
      } else if (assignment === "FAILED_ASSIGNMENT") {
        found.set(number, { state: "rejected", reason: reasonText(a.failureReasons) ?? "Assigning the number to the campaign failed", detail });
      } else if (status && CAMPAIGN_REFUSED.has(status)) {
        found.set(number, { state: "rejected", reason: reasonText(campaign?.failureReasons) ?? `Campaign ${words(status)}`, detail });
      } else if (assignment === "ASSIGNED" && status === "MNO_PROVISIONED") {
        found.set(number, { state: "registered", reason: null, detail });
      } else {
        const why = assignment && assignment !== "ASSIGNED" ? `Assignment ${words(assignment)}` : `Campaign ${words(status ?? "submitted")}`;
        found.set(number, { state: "pending", reason: why, detail });
      }
    }
  }

  if (tollFree.length) {
    const requests = await pages(get, (p) => `/v2/messaging_tollfree/verification/requests?page=${p}&page_size=${PAGE}`, (b) => Number(b.total_records ?? 0));
    for (const number of tollFree) {
      const mine = requests.filter((r) => Array.isArray(r.phoneNumbers) && (r.phoneNumbers as Row[]).some((p) => p?.phoneNumber === number));
      // The newest request decides (a rejected one is followed by a resubmission).
      mine.sort((x, y) => Date.parse(String(y.updatedAt ?? y.createdAt ?? "")) - Date.parse(String(x.updatedAt ?? x.createdAt ?? "")));
      const r = mine[0];
      if (!r) {
        found.set(number, { state: "unregistered", reason: "No toll-free verification request has been submitted for this number", detail: null });
        continue;
      }
      const detail = `Verification request ${r.id}${r.businessName ? ` for ${r.businessName}` : ""}`;
      const status = str(r.verificationStatus);
      if (status === "Verified") found.set(number, { state: "registered", reason: null, detail });
      else if (status === "Rejected") found.set(number, { state: "rejected", reason: str(r.reason) ?? "The verification was rejected", detail });
      else found.set(number, { state: "pending", reason: `Verification: ${(status ?? "submitted").toLowerCase()}`, detail });
    }
  }
  return found;
}

import { basicAuth, errorFromStatus, providerFetch, trimBase } from "./http";
import type { RegistrationFinding, RegistrationQuery } from "./types";

/**
 * A2P 10DLC and toll-free verification as Twilio's Messaging API (messaging.twilio.com/v1) holds them
 * (issue 34 item 1). A local number is registered when it belongs to a Messaging Service whose A2P campaign
 * (Services/{sid}/Compliance/Usa2p) is VERIFIED under a brand (a2p/BrandRegistrations) that has not failed; a
 * toll-free number when its Tollfree/Verifications request is TWILIO_APPROVED.
 * Wire formats: twilio-node's rest/messaging/v1 (brandRegistration, service, service/phoneNumber,
 * service/usAppToPerson, tollfreeVerification); list pages carry their items under `meta.key`.
 */

export const TWILIO_MESSAGING_ORIGIN = "https://messaging.twilio.com";

type Row = Record<string, unknown>;
const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : null);

/** The messaging API's origin: Twilio's own, or TWILIO_API_BASE when that is overridden (a fake or a proxy serves both). */
export function twilioMessagingBase(apiBase: string): string {
  const base = trimBase(apiBase);
  return base === "https://api.twilio.com" ? TWILIO_MESSAGING_ORIGIN : base;
}

const fieldWords = (f: unknown) => (typeof f === "string" && f.trim() ? f.trim().replace(/_/g, " ").toLowerCase() : null);

/**
 * A brand's or an A2P campaign's `errors`, in the reviewers' words with the code and the fields they named. Their
 * shape is Twilio's OpenAPI examples' (twilio/twilio-oai spec/json/twilio_messaging_v1.json, the BrandRegistrations
 * and Services/{sid}/Compliance/Usa2p list examples): `[{error_code: 30897, description: "The campaign submission has
 * been reviewed and it was rejected due to Disallowed Content.", fields: ["MESSAGE_FLOW"], url}]`; the schema itself
 * leaves the items open, so `code`/`message` are read too.
 */
function reviewErrors(errors: unknown): string | null {
  if (!Array.isArray(errors)) return null;
  const out: string[] = [];
  for (const e of errors) {
    const r = (e ?? {}) as Row;
    const text = str(r.description) ?? str(r.message);
    const code = r.error_code ?? r.code;
    const fields = Array.isArray(r.fields) ? r.fields.map(fieldWords).filter(Boolean) : [];
    if (!text && !code) continue;
    const about = [code ? `error ${code}` : null, fields.length ? `${fields.length === 1 ? "field" : "fields"}: ${fields.join(", ")}` : null].filter(Boolean);
    out.push(`${(text ?? "Rejected").replace(/\.$/, "")}${about.length ? ` (${about.join("; ")})` : ""}`);
  }
  return out.length ? [...new Set(out)].join("; ") : null;
}

/**
 * A toll-free verification's rejection: `rejection_reason` with its integer `error_code`, and `rejection_reasons`, "a
 * list of rejection reasons and codes" (twilio_messaging_v1.json's tollfree_verification; its examples leave the list
 * null, so each entry's reason and code are read under the names Twilio uses elsewhere).
 */
function tollFreeRejection(v: Row): string | null {
  const listed: string[] = [];
  if (Array.isArray(v.rejection_reasons)) {
    for (const e of v.rejection_reasons) {
      const r = (e ?? {}) as Row;
      const text = typeof e === "string" ? str(e) : (str(r.reason) ?? str(r.description) ?? str(r.message));
      const code = r.error_code ?? r.code;
      if (text) listed.push(code ? `${text} (error ${code})` : text);
    }
  }
  const single = str(v.rejection_reason);
  const one = single && v.error_code && !single.includes(String(v.error_code)) ? `${single} (error ${v.error_code})` : single;
  const all = [...new Set([...(one ? [one] : []), ...listed])];
  return all.length ? all.join("; ") : null;
}

/** Twilio's `rate_limits` of a verified campaign: AT&T's message class and T-Mobile's brand tier. */
function limitsOf(campaign: Row): string | null {
  const limits = (campaign.rate_limits ?? {}) as Record<string, Row>;
  const parts: string[] = [];
  const att = limits.att;
  if (att && (att.msg_class || att.mps)) parts.push(`AT&T class ${att.msg_class ?? "?"}${att.mps ? `, ${att.mps} messages a minute` : ""}`);
  const tmo = limits.tmobile;
  if (tmo?.brand_tier) parts.push(`T-Mobile tier ${tmo.brand_tier}`);
  return parts.length ? parts.join("; ") : null;
}

export async function readTwilioRegistrations(
  credentials: { accountSid: string; authToken: string },
  apiBase: string,
  numbers: RegistrationQuery[],
  timeoutMs?: number,
): Promise<Map<string, RegistrationFinding>> {
  const base = twilioMessagingBase(apiBase);
  const auth = basicAuth(credentials.accountSid, credentials.authToken);

  /** Every item of a list, page after page (next_page_url is absolute on Twilio's host: its path is kept). */
  async function list(path: string): Promise<Row[]> {
    const items: Row[] = [];
    let url: string | null = `${base}${path}`;
    for (let pages = 0; url && pages < 50; pages++) {
      const res = await providerFetch(url, { method: "GET", headers: { Authorization: auth, Accept: "application/json" }, timeoutMs });
      const body = (res.body ?? {}) as Row;
      if (res.status < 200 || res.status >= 300) {
        throw errorFromStatus(res, body.code ? String(body.code) : `HTTP ${res.status}`, str(body.message) ?? `Twilio answered HTTP ${res.status}`);
      }
      const meta = (body.meta ?? {}) as Row;
      const key = str(meta.key) ?? Object.keys(body).find((k) => k !== "meta" && Array.isArray(body[k]));
      if (key && Array.isArray(body[key])) items.push(...(body[key] as Row[]));
      const next = str(meta.next_page_url);
      url = next ? `${base}${new URL(next, base).pathname}${new URL(next, base).search}` : null;
    }
    return items;
  }

  const found = new Map<string, RegistrationFinding>();
  const local = numbers.filter((n) => n.program === "10dlc").map((n) => n.phoneNumber);
  const tollFree = numbers.filter((n) => n.program === "toll_free").map((n) => n.phoneNumber);

  if (local.length) {
    const brands = await list("/v1/a2p/BrandRegistrations?PageSize=50");
    const services = await list("/v1/Services?PageSize=50");
    // Each service's numbers, then its campaign (a service has at most one A2P campaign).
    const serviceOf = new Map<string, Row>();
    for (const service of services) {
      const sid = String(service.sid);
      for (const p of await list(`/v1/Services/${sid}/PhoneNumbers?PageSize=50`)) {
        const number = str(p.phone_number);
        if (number && local.includes(number)) serviceOf.set(number, service);
      }
    }
    const campaignOf = new Map<string, Row | null>();
    for (const service of new Set(serviceOf.values())) {
      const sid = String(service.sid);
      campaignOf.set(sid, (await list(`/v1/Services/${sid}/Compliance/Usa2p`))[0] ?? null);
    }
    for (const number of local) {
      const service = serviceOf.get(number);
      if (!service) {
        const reason = brands.length
          ? "The number is in no Messaging Service, so it is in no A2P 10DLC campaign"
          : "No A2P 10DLC brand is registered on this Twilio account, and the number is in no Messaging Service";
        found.set(number, { state: "unregistered", reason, detail: null });
        continue;
      }
      const serviceName = `Messaging Service '${str(service.friendly_name) ?? service.sid}'`;
      const campaign = campaignOf.get(String(service.sid));
      if (!campaign) {
        found.set(number, { state: "unregistered", reason: `${serviceName} has no A2P 10DLC campaign`, detail: serviceName });
        continue;
      }
      const brand = brands.find((b) => b.sid === campaign.brand_registration_sid);
      const brandStatus = str(brand?.status);
      const detail = [
        `Brand ${brand?.sid ?? campaign.brand_registration_sid}`,
        `campaign ${str(campaign.campaign_id) ?? campaign.sid}${campaign.us_app_to_person_usecase ? ` (${campaign.us_app_to_person_usecase})` : ""}`,
        serviceName,
      ].join(", ");
      const status = str(campaign.campaign_status);
      if (brandStatus === "FAILED" || brandStatus === "SUSPENDED") {
        // failure_reason is deprecated (its example reads "Registration error" even on an APPROVED brand): errors first.
        const why = reviewErrors(brand?.errors) ?? str(brand?.failure_reason) ?? `The brand registration is ${brandStatus.toLowerCase()}`;
        found.set(number, { state: "rejected", reason: `Brand: ${why}`, detail });
      } else if (status === "VERIFIED") {
        const limits = limitsOf(campaign);
        found.set(number, { state: "registered", reason: null, detail: limits ? `${detail}; ${limits}` : detail });
      } else if (status === "FAILED" || status === "SUSPENDED") {
        found.set(number, { state: "rejected", reason: reviewErrors(campaign.errors) ?? `The campaign is ${status.toLowerCase()}`, detail });
      } else {
        const brandWaiting = brandStatus && brandStatus !== "APPROVED" ? `the brand is ${brandStatus.replace(/_/g, " ").toLowerCase()}` : null;
        found.set(number, { state: "pending", reason: `Campaign ${(status ?? "submitted").replace(/_/g, " ").toLowerCase()}${brandWaiting ? `; ${brandWaiting}` : ""}`, detail });
      }
    }
  }

  if (tollFree.length) {
    const verifications = await list("/v1/Tollfree/Verifications?PageSize=50");
    for (const number of tollFree) {
      // The newest request for the number decides (a rejected one is followed by a resubmission).
      const mine = verifications
        .filter((v) => v.tollfree_phone_number === number)
        .sort((a, b) => Date.parse(String(b.date_updated ?? b.date_created ?? "")) - Date.parse(String(a.date_updated ?? a.date_created ?? "")));
      const v = mine[0];
      if (!v) {
        found.set(number, { state: "unregistered", reason: "No toll-free verification has been submitted for this number", detail: null });
        continue;
      }
      const detail = `Verification ${v.sid}${v.business_name ? ` for ${v.business_name}` : ""}`;
      const status = str(v.status);
      if (status === "TWILIO_APPROVED") found.set(number, { state: "registered", reason: null, detail });
      else if (status === "TWILIO_REJECTED") {
        found.set(number, { state: "rejected", reason: tollFreeRejection(v) ?? "The verification was rejected", detail });
      } else found.set(number, { state: "pending", reason: `Verification ${(status ?? "submitted").replace(/_/g, " ").toLowerCase()}`, detail });
    }
  }
  return found;
}

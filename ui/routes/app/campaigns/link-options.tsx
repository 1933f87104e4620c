import { Input } from "../../../components/ui";

/**
 * How a campaign's links go out (issue 32 item 1): as short links on the account's link domain with these UTM
 * parameters, expiring after so many days. The campaign dialog and the wizard both edit them with LinkOptions.
 */
export type LinkFields = {
  shortenLinks: boolean;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  linkExpiryDays: string;
};

export const LINK_DEFAULTS: LinkFields = { shortenLinks: true, utmSource: "", utmMedium: "", utmCampaign: "", linkExpiryDays: "90" };

/** The fields as POST/PUT /api/campaigns take them: blank UTM values left out, the expiry a whole 1-3650 days. */
export const linkBody = (f: LinkFields) => ({
  shortenLinks: f.shortenLinks,
  utmSource: f.utmSource.trim() || null,
  utmMedium: f.utmMedium.trim() || null,
  utmCampaign: f.utmCampaign.trim() || null,
  linkExpiryDays: Math.min(3650, Math.max(1, Math.round(Number(f.linkExpiryDays)) || 90)),
});

const UTM = [
  ["utmSource", "utm_source", "sms"],
  ["utmMedium", "utm_medium", "text"],
  ["utmCampaign", "utm_campaign", "spring-sale"],
] as const;

/** The switch "Shorten links and count clicks" and, while it is on, the UTM fields and the expiry. */
export function LinkOptions({ value, onChange, domain }: { value: LinkFields; onChange: (patch: Partial<LinkFields>) => void; domain: string | null }) {
  return (
    <>
      <label className="flex items-center gap-2 text-sm text-slate-700">
        <input type="checkbox" checked={value.shortenLinks} onChange={(e) => onChange({ shortenLinks: e.target.checked })} />
        Shorten links and count clicks{domain ? ` (${domain}/l/…)` : ""}
      </label>
      {value.shortenLinks && (
        <div className="grid grid-cols-2 gap-2 sm:grid-cols-4" data-testid="link-options">
          {UTM.map(([key, label, hint]) => (
            <label key={key} className="text-xs text-slate-600">
              {label}
              <Input value={value[key]} maxLength={100} placeholder={hint} onChange={(e) => onChange({ [key]: e.target.value })} />
            </label>
          ))}
          <label className="text-xs text-slate-600">
            Links expire after (days)
            <Input type="number" min={1} max={3650} value={value.linkExpiryDays} onChange={(e) => onChange({ linkExpiryDays: e.target.value })} />
          </label>
        </div>
      )}
    </>
  );
}

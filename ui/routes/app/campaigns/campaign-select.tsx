import { useCampaigns } from "../../../api/campaigns";
import { Select } from "../../../components/ui";

/** The account's newest SMS campaigns by name, for a click condition or trigger (issue 32 item 2). */
export function useCampaignNames(): Map<string, string> {
  const page = useCampaigns({ page: 1, pageSize: 100 });
  return new Map((page.data?.data ?? []).map((c) => [c.id, c.name]));
}

/** A choice of one of the account's campaigns; `empty` names the choice of none ("Any campaign", "Campaign…"). */
export function CampaignSelect({ id, label, value, onChange, empty }: { id?: string; label?: string; value: string; onChange: (id: string) => void; empty: string }) {
  const names = useCampaignNames();
  return (
    <Select id={id} aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{empty}</option>
      {[...names].map(([campaignId, name]) => (
        <option key={campaignId} value={campaignId}>
          {name}
        </option>
      ))}
    </Select>
  );
}

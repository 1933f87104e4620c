import { Link } from "@tanstack/react-router";
import { Select, Spinner } from "../../../components/ui";
import { useAudienceCounts } from "../../../api/campaigns";
import { usePhoneNumbers } from "../../../api/phone-numbers";
import { useUserSettings } from "../../../api/users";
import { formatPhone } from "../contacts/model";
import type { PhoneNumber } from "./model";

/** The user's active sender numbers; the default one first choice. */
export function useSenders() {
  const r = usePhoneNumbers();
  const numbers = (r.data?.data ?? []).filter((n) => n.isActive);
  const preferred = numbers.find((n) => n.isDefault) ?? numbers[0];
  return { numbers, loading: r.loading, error: r.error, defaultNumber: preferred?.phoneNumber ?? "" };
}

export { useAudienceCounts };

export const useSendingSettings = () => useUserSettings();

/** Whether new campaigns carry the opt-out line, as the account's settings say (on unless turned off). */
export function useOptOutDefault(): boolean | null {
  const r = useSendingSettings();
  if (r.loading && !r.data) return null;
  return r.data?.appendOptOut !== false;
}

const senderLabel = (n: PhoneNumber) =>
  `${n.displayName ? `${n.displayName} · ` : ""}${formatPhone(n.phoneNumber) || n.phoneNumber} (${n.providerName})`;

/** The "from" choice; without any number, a pointer to Phone Settings instead. */
export function SenderSelect({
  id,
  senders,
  value,
  onChange,
}: {
  id: string;
  senders: ReturnType<typeof useSenders>;
  value: string;
  onChange: (phoneNumber: string) => void;
}) {
  if (senders.loading && senders.numbers.length === 0) return <Spinner className="text-slate-400" />;
  if (senders.error) return <p className="text-sm text-red-600">Could not load your numbers: {senders.error.message}</p>;
  if (senders.numbers.length === 0) {
    return (
      <p id={id} className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
        You have no sender numbers yet. Add an SMS provider and a number in{" "}
        <Link to="/phone-settings" className="font-medium underline">
          Phone Settings
        </Link>{" "}
        to send.
      </p>
    );
  }
  return (
    <Select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">Choose a number…</option>
      {senders.numbers.map((n) => (
        <option key={n.id} value={n.phoneNumber}>
          {senderLabel(n)}
        </option>
      ))}
    </Select>
  );
}

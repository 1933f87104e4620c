import { useEffect, useState } from "react";
import { Button, Card, Input, Spinner } from "../../../components/ui";
import { deletePhoneNumber, updatePhoneNumber } from "../../../api/phone-numbers";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { formatSender, kindLabel, providerName, type PhoneNumber } from "./model";
import { Badge } from "../../../components/badge";

/** The number's own sending rate, edited in place. */
function RateInput({ number, onSaved }: { number: PhoneNumber; onSaved: () => void }) {
  const [value, setValue] = useState(String(number.messagesPerSecond));
  useEffect(() => setValue(String(number.messagesPerSecond)), [number.messagesPerSecond]);
  const dirty = value !== String(number.messagesPerSecond);
  const saveRate = useMutation((rate: number) => updatePhoneNumber(number.id, { messagesPerSecond: rate }), {
    onSuccess: onSaved,
    success: (_saved, rate) => ({
      title: "Sending rate saved",
      description: `${formatSender(number.phoneNumber)} sends up to ${rate} message${rate === 1 ? "" : "s"} per second.`,
    }),
    fallback: "Failed to save the sending rate",
    failureToast: "Error",
  });
  const save = () => {
    const rate = Number(value);
    if (!(rate > 0)) {
      toast({ title: "Error", description: "Messages per second must be a number above 0", variant: "destructive" });
      return;
    }
    return saveRate.run(rate);
  };
  return (
    <form onSubmit={submitWith(save)} className="flex items-center gap-2">
      <Input
        aria-label={`Messages per second for ${number.phoneNumber}`}
        type="number"
        min="0.1"
        step="any"
        inputMode="decimal"
        className="!w-20"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <span className="text-sm text-slate-500">msg/s</span>
      {dirty && (
        <Button type="submit" variant="secondary" className="!px-3 !py-1.5" disabled={saveRate.busy}>
          {saveRate.busy && <Spinner />}
          Save
        </Button>
      )}
    </form>
  );
}

function NumberRow({ number, onChanged }: { number: PhoneNumber; onChanged: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const shown = formatSender(number.phoneNumber);

  const makeDefault = useMutation(() => updatePhoneNumber(number.id, { isDefault: true }), {
    onSuccess: onChanged,
    success: { title: "Default number updated", description: `${shown} is now your default sender.` },
    fallback: "Failed to update the number",
    failureToast: "Error",
  });

  const remove = async () => {
    try {
      await deletePhoneNumber(number.id);
      toast({ title: "Phone number removed" });
      setConfirming(false);
      onChanged();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Failed to remove the number"), variant: "destructive" });
    }
  };

  return (
    <li
      className="grid gap-3 p-4 md:grid-cols-[minmax(0,1.4fr)_minmax(0,1fr)_13rem_13rem] md:items-center"
      data-testid="phone-number-row"
    >
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium">{shown}</span>
          {number.isDefault && <Badge tone="brand">Default</Badge>}
          {!number.isActive && <Badge tone="slate">Inactive</Badge>}
        </div>
        <p className="truncate text-sm text-slate-500">{number.displayName || "No display name"}</p>
      </div>
      <div className="min-w-0 text-sm">
        <p className="truncate">{number.providerName}</p>
        <p className="text-slate-500">
          {providerName(number.provider)} · {kindLabel(number.kind)}
        </p>
      </div>
      <RateInput number={number} onSaved={onChanged} />
      <div className="flex flex-wrap gap-2 md:justify-end">
        {!number.isDefault && (
          <Button variant="secondary" className="!px-3 !py-1.5" onClick={() => makeDefault.run()} disabled={makeDefault.busy}>
            Set as default
          </Button>
        )}
        <Button
          variant="ghost"
          className="!px-3 !py-1.5 !text-red-700 hover:bg-red-50"
          aria-label={`Delete ${number.phoneNumber}`}
          onClick={() => setConfirming(true)}
        >
          Delete
        </Button>
      </div>
      {confirming && (
        <ConfirmDialog title="Delete phone number" confirmLabel="Delete" onConfirm={remove} onClose={() => setConfirming(false)}>
          <p>
            Remove <strong>{shown}</strong> from your sender numbers? Nothing changes at your provider; you can add it again
            later.
          </p>
        </ConfirmDialog>
      )}
    </li>
  );
}

export function NumbersTab({ numbers, onChanged }: { numbers: PhoneNumber[]; onChanged: () => void }) {
  return (
    <Card>
      <div className="hidden grid-cols-[minmax(0,1.4fr)_minmax(0,1fr)_13rem_13rem] gap-3 border-b border-slate-200 bg-slate-50 px-4 py-2 text-xs font-semibold uppercase tracking-wide text-slate-500 md:grid">
        <span>Number</span>
        <span>Provider</span>
        <span>Sending rate</span>
        <span className="sr-only">Actions</span>
      </div>
      <ul className="divide-y divide-slate-100">
        {numbers.map((n) => (
          <NumberRow key={n.id} number={n} onChanged={onChanged} />
        ))}
      </ul>
    </Card>
  );
}

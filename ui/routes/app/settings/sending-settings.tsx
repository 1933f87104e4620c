import { useEffect, useState } from "react";
import { Button, Card, Field, Input } from "../../../components/ui";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { updateUserSettings, useUserSettings } from "../../../api/users";

type SendingSettings = {
  quietHoursEnabled: boolean;
  quietHoursStart: string;
  quietHoursEnd: string;
  appendOptOut: boolean;
  frequencyCapPerDay: number | null;
  helpReply: string;
};

/** What saving did: quiet hours turned off send what they held at once; moved, they hold it until their new end. */
function savedDescription(released: number, quietHoursOn: boolean): string {
  if (!released) return "Your sending settings have been updated.";
  const messages = `${released} message${released === 1 ? "" : "s"} held for quiet hours`;
  return quietHoursOn
    ? `${messages} go out as the new quiet hours allow.`
    : `Quiet hours are off: ${messages} ${released === 1 ? "is" : "are"} being sent now.`;
}

/** Compliance at send time: quiet hours, the opt-out line, an optional cap per contact, and the HELP reply. */
export function SendingSettingsCard() {
  const { data, reload } = useUserSettings();
  const [form, setForm] = useState<SendingSettings | null>(null);
  const [cap, setCap] = useState("");
  // Quiet hours as saved: turning them off is said to send what they hold once it is saved.
  const [savedQuiet, setSavedQuiet] = useState(false);

  const saveSettings = useMutation(
    // The HELP reply is sent only when edited: a default shown before the business name changed is not the user's text.
    ({ helpReply, ...rest }: SendingSettings, frequencyCapPerDay: number | null) =>
      updateUserSettings({ ...rest, frequencyCapPerDay, ...(helpReply !== data?.helpReply ? { helpReply } : {}) }),
    {
      onSuccess: ({ releasedHeld: _released, ...saved }) => {
        setForm(saved);
        setSavedQuiet(saved.quietHoursEnabled);
        reload();
      },
      success: (saved) => ({ title: "Settings saved", description: savedDescription(saved.releasedHeld, saved.quietHoursEnabled) }),
      fallback: "Failed to update settings",
      failureToast: "Error",
    },
  );

  useEffect(() => {
    if (data && !form) {
      setForm(data);
      setSavedQuiet(data.quietHoursEnabled);
      setCap(data.frequencyCapPerDay ? String(data.frequencyCapPerDay) : "");
    }
  }, [data, form]);

  if (!form) return null;

  const save = async () => {
    const capValue = cap.trim() === "" ? null : Number(cap);
    if (capValue !== null && (!Number.isInteger(capValue) || capValue < 1 || capValue > 100)) {
      toast({ title: "Error", description: "The frequency cap must be 1 to 100 messages a day, or empty", variant: "destructive" });
      return;
    }
    return saveSettings.run(form, capValue);
  };

  return (
    <Card className="p-6">
      <h2 className="text-lg font-semibold">Sending & Compliance</h2>
      <p className="mb-5 text-sm text-slate-500">
        Campaign messages wait outside quiet hours in each recipient's local time (from their number; your time zone when it cannot be told), and are
        never sent to contacts who opted out.
      </p>
      <div className="space-y-5">
        <label className="flex items-center gap-3 text-sm font-medium text-slate-700">
          <input
            type="checkbox"
            className="h-4 w-4 rounded border-slate-300"
            checked={form.quietHoursEnabled}
            onChange={(e) => setForm({ ...form, quietHoursEnabled: e.target.checked })}
          />
          Hold campaign messages during quiet hours
        </label>
        {savedQuiet && !form.quietHoursEnabled && (
          <p role="note" className="-mt-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="quiet-hours-off-note">
            Saving sends the campaign messages quiet hours hold now, whatever the hour where their recipients are.
          </p>
        )}
        <div className="grid gap-4 sm:grid-cols-2 md:max-w-md">
          <Field label="Quiet hours start" htmlFor="quiet-start">
            <Input
              id="quiet-start"
              type="time"
              value={form.quietHoursStart}
              disabled={!form.quietHoursEnabled}
              onChange={(e) => setForm({ ...form, quietHoursStart: e.target.value })}
            />
          </Field>
          <Field label="Quiet hours end" htmlFor="quiet-end">
            <Input
              id="quiet-end"
              type="time"
              value={form.quietHoursEnd}
              disabled={!form.quietHoursEnabled}
              onChange={(e) => setForm({ ...form, quietHoursEnd: e.target.value })}
            />
          </Field>
        </div>
        <label className="flex items-center gap-3 text-sm font-medium text-slate-700">
          <input
            type="checkbox"
            className="h-4 w-4 rounded border-slate-300"
            checked={form.appendOptOut}
            onChange={(e) => setForm({ ...form, appendOptOut: e.target.checked })}
          />
          End campaign messages with "Reply STOP to opt out"
        </label>
        <div className="md:max-w-xs">
          <Field label="Frequency cap (campaign messages per contact per day)" htmlFor="frequency-cap" hint="Leave empty for no cap.">
            <Input id="frequency-cap" inputMode="numeric" value={cap} placeholder="No cap" onChange={(e) => setCap(e.target.value.replace(/\D/g, ""))} />
          </Field>
        </div>
        <div>
          <Field
            label="HELP reply"
            htmlFor="help-reply"
            hint="Sent to anyone who texts HELP or INFO. Carriers expect your business name, a way to reach you, that rates may apply, and how to stop. Empty: the default below, from your Business Profile."
          >
            <textarea
              id="help-reply"
              rows={3}
              maxLength={480}
              className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
              value={form.helpReply}
              onChange={(e) => setForm({ ...form, helpReply: e.target.value })}
            />
          </Field>
          {data && form.helpReply.trim() !== data.helpReplyDefault && (
            <div className="mt-2 rounded-lg bg-slate-50 p-3 text-sm text-slate-600">
              <p>
                Default: <span data-testid="help-reply-default">{data.helpReplyDefault}</span>
              </p>
              <Button variant="ghost" className="mt-1 px-0" onClick={() => setForm({ ...form, helpReply: data.helpReplyDefault })}>
                Use the default
              </Button>
            </div>
          )}
        </div>
      </div>
      <Button className="mt-6" onClick={save} disabled={saveSettings.busy}>
        {saveSettings.busy ? "Saving..." : "Save Sending Settings"}
      </Button>
    </Card>
  );
}

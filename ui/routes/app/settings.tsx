import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { DATE_FORMATS, formatDate, LOCALES, TIMEZONES } from "../../../shared/users/regional-options";
import { Button, Card, Field, Select } from "../../components/ui";
import { auth, refreshUser } from "../../lib/auth";
import { useMutation } from "../../lib/use-mutation";
import { updateUserSettings, useUserSettings } from "../../api/users";
import { CountrySelect } from "./contacts/country-select";
import { BusinessProfileCard } from "./settings/business-profile";
import { SendingSettingsCard } from "./settings/sending-settings";

type Settings = { timezone: string; locale: string; dateFormat: string };

export function SettingsPage() {
  useSignals();
  const user = auth.value.user!;
  const [settings, setSettings] = useState<Settings>({ timezone: user.timezone, locale: user.locale, dateFormat: user.dateFormat });
  const [now, setNow] = useState(() => new Date());
  // The country of numbers typed without "+": derived until the user picks one, so it is sent only once changed.
  const stored = useUserSettings();
  const [country, setCountry] = useState<string | null>(null);

  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 1000);
    return () => clearInterval(timer);
  }, []);

  const save = useMutation(() => updateUserSettings(country ? { ...settings, defaultCountry: country } : settings), {
    onSuccess: refreshUser,
    success: { title: "Settings saved", description: "Your regional settings have been updated." },
    fallback: "Failed to update settings",
    failureToast: "Error",
  });

  const time = new Intl.DateTimeFormat(settings.locale, { timeZone: settings.timezone, timeStyle: "short" }).format(now);
  const number = new Intl.NumberFormat(settings.locale, { style: "currency", currency: "USD" }).format(1234.5);

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">Account Settings</h1>
        <p className="break-all text-slate-600">Signed in as {user.email}</p>
      </div>
      <BusinessProfileCard />
      <Card className="p-6">
        <h2 className="text-lg font-semibold">International Settings</h2>
        <p className="mb-5 text-sm text-slate-500">
          How dates and times are shown to you, the time zone your schedules use, and the country of phone numbers written without
          a + (imports and the contact form).
        </p>
        <div className="grid gap-4 md:grid-cols-2 lg:grid-cols-4">
          <Field label="Timezone" htmlFor="settings-timezone">
            <Select id="settings-timezone" value={settings.timezone} onChange={(e) => setSettings({ ...settings, timezone: e.target.value })}>
              {TIMEZONES.map((z) => (
                <option key={z.value} value={z.value}>
                  {z.label}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Language & Region" htmlFor="settings-locale">
            <Select id="settings-locale" value={settings.locale} onChange={(e) => setSettings({ ...settings, locale: e.target.value })}>
              {LOCALES.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Default country for phone numbers" htmlFor="settings-country">
            <CountrySelect id="settings-country" value={country ?? stored.data?.defaultCountry ?? "US"} locale={settings.locale} onChange={setCountry} />
          </Field>
          <Field label="Date Format" htmlFor="settings-date-format">
            <Select id="settings-date-format" value={settings.dateFormat} onChange={(e) => setSettings({ ...settings, dateFormat: e.target.value })}>
              {DATE_FORMATS.map((f) => (
                <option key={f}>{f}</option>
              ))}
            </Select>
          </Field>
        </div>
        <div className="mt-6 rounded-lg bg-slate-50 p-4" aria-live="polite">
          <p className="text-sm font-medium text-slate-700">Preview</p>
          <dl className="mt-2 grid gap-2 text-sm sm:grid-cols-3">
            <div>
              <dt className="text-slate-500">Date</dt>
              <dd data-testid="preview-date">{formatDate(now, settings.dateFormat, settings.timezone)}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Time</dt>
              <dd>{time}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Numbers</dt>
              <dd>{number}</dd>
            </div>
          </dl>
        </div>
        <Button className="mt-6" onClick={() => save.run()} disabled={save.busy}>
          {save.busy ? "Saving..." : "Save Settings"}
        </Button>
      </Card>
      <SendingSettingsCard />
    </div>
  );
}

import { useNavigate } from "@tanstack/react-router";
import { isSupportedCountry } from "libphonenumber-js";
import { useEffect, useState } from "react";
import { CUSTOMER_TYPES, GOALS, INDUSTRIES, TIMEZONES } from "../../../shared/users/regional-options";
import { Logo } from "../../components/public-layout";
import { Button, Card, cx, Field, Input, Select } from "../../components/ui";
import { saveOnboarding, useUserSettings } from "../../api/users";
import { auth, setUser } from "../../lib/auth";
import { useMutation } from "../../lib/use-mutation";
import { CountrySelect } from "./contacts/country-select";

const STEPS = ["Your business", "Your customers", "Your goals", "All set"];

/** The minutes a zone is ahead of UTC at `at`. */
function offsetOf(zone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" })
    .formatToParts(at)
    .reduce<Record<string, number>>((acc, p) => (p.type === "literal" ? acc : { ...acc, [p.type]: Number(p.value) }), {});
  return Math.round((Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!) - at.getTime()) / 60_000);
}

/** The browser's time zone among those offered, else one offered with the same clock now; null when none has. */
export function browserZone(): string | null {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (TIMEZONES.some((z) => z.value === zone)) return zone;
  const now = new Date();
  const mine = offsetOf(zone, now);
  return TIMEZONES.find((z) => offsetOf(z.value, now) === mine)?.value ?? null;
}

/** The country of the browser's language ("en-GB": GB; "de": DE once maximized), if phone numbers know it. */
export function browserCountry(): string | null {
  for (const tag of navigator.languages ?? [navigator.language]) {
    try {
      const region = new Intl.Locale(tag).maximize().region;
      if (region && isSupportedCountry(region)) return region;
    } catch {
      // An odd tag: try the next.
    }
  }
  return null;
}

/**
 * The first-run setup wizard at /welcome and /onboarding, shown after the email is verified: the business profile's
 * name and industry, the customers, the goals, and where the business is (time zone, default country), the first
 * time from the browser. Revisited, it shows what was saved. It ends on /dashboard.
 */
export function OnboardingPage() {
  const user = auth.value.user!;
  const settings = useUserSettings();
  const navigate = useNavigate();
  const [step, setStep] = useState(0);
  const [businessName, setBusinessName] = useState(user.business.name ?? "");
  const [industry, setIndustry] = useState(user.business.industry ?? "");
  const [customerType, setCustomerType] = useState(user.onboarding?.customerType ?? "");
  const [goals, setGoals] = useState<string[]>(user.onboarding?.goals ?? []);
  const [timezone, setTimezone] = useState(() => (user.onboardedAt ? user.timezone : (browserZone() ?? user.timezone)));
  const [country, setCountry] = useState<string | null>(null);
  const finish = useMutation(() => saveOnboarding({ businessName, industry, customerType, goals, timezone, defaultCountry: country! }), {
    onSuccess: (saved) => {
      setUser(saved);
      setStep(3);
    },
    fallback: "Failed to save your answers",
    failureToast: "Error",
  });
  const saving = finish.busy;

  // The country: the one chosen before, else the browser's, else the one derived for the account.
  useEffect(() => {
    const s = settings.data;
    if (s && country === null) setCountry(s.defaultCountryChosen ? s.defaultCountry : (browserCountry() ?? s.defaultCountry));
  }, [settings.data, country]);

  const canContinue = [businessName.trim() !== "" && industry !== "" && country !== null, customerType !== "", goals.length > 0][step] ?? true;

  const next = () => (step < 2 ? setStep(step + 1) : finish.run());

  const toggleGoal = (g: string) => setGoals((gs) => (gs.includes(g) ? gs.filter((x) => x !== g) : [...gs, g]));

  return (
    <div className="flex min-h-screen flex-col items-center gap-6 bg-slate-50 p-4 pt-12">
      <Logo />
      <Card className="w-full max-w-xl p-6">
        <ol className="mb-6 flex gap-2" aria-label="Progress">
          {STEPS.map((s, i) => (
            <li key={s} className="flex-1">
              <div className={cx("h-1.5 rounded-full", i <= step ? "bg-brand-600" : "bg-slate-200")} />
              <p className={cx("mt-1 text-xs", i === step ? "font-medium text-brand-700" : "text-slate-500")}>{s}</p>
            </li>
          ))}
        </ol>

        {step === 0 && (
          <div className="space-y-4">
            <h1 className="text-xl font-semibold">Tell us about your business</h1>
            <Field label="Business name" htmlFor="ob-name">
              <Input id="ob-name" value={businessName} maxLength={120} onChange={(e) => setBusinessName(e.target.value)} />
            </Field>
            <Field label="Industry" htmlFor="ob-industry">
              <Select id="ob-industry" value={industry} onChange={(e) => setIndustry(e.target.value)}>
                <option value="">Choose your industry</option>
                {INDUSTRIES.map((i) => (
                  <option key={i}>{i}</option>
                ))}
              </Select>
            </Field>
            <div className="grid gap-4 sm:grid-cols-2">
              <Field label="Time zone" htmlFor="ob-timezone" hint="Your schedules and reports use it.">
                <Select id="ob-timezone" value={timezone} onChange={(e) => setTimezone(e.target.value)}>
                  {TIMEZONES.map((z) => (
                    <option key={z.value} value={z.value}>
                      {z.label}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="Default country" htmlFor="ob-country" hint="For phone numbers written without +.">
                <CountrySelect id="ob-country" value={country ?? ""} locale={user.locale} onChange={setCountry} />
              </Field>
            </div>
          </div>
        )}

        {step === 1 && (
          <fieldset className="space-y-3">
            <legend className="mb-2 text-xl font-semibold">Who are your customers?</legend>
            {CUSTOMER_TYPES.map((c) => (
              <label key={c.value} className={cx("flex cursor-pointer items-center gap-3 rounded-lg border p-3", customerType === c.value ? "border-brand-500 bg-brand-50" : "border-slate-200")}>
                <input type="radio" name="customerType" value={c.value} checked={customerType === c.value} onChange={() => setCustomerType(c.value)} />
                <span className="text-sm">{c.label}</span>
              </label>
            ))}
          </fieldset>
        )}

        {step === 2 && (
          <fieldset className="space-y-3">
            <legend className="mb-2 text-xl font-semibold">What do you want texting to do for you?</legend>
            <p className="text-sm text-slate-500">Pick as many as you like.</p>
            {GOALS.map((g) => (
              <label key={g.value} className={cx("flex cursor-pointer items-center gap-3 rounded-lg border p-3", goals.includes(g.value) ? "border-brand-500 bg-brand-50" : "border-slate-200")}>
                <input type="checkbox" checked={goals.includes(g.value)} onChange={() => toggleGoal(g.value)} />
                <span className="text-sm">{g.label}</span>
              </label>
            ))}
          </fieldset>
        )}

        {step === 3 && (
          <div className="space-y-3 text-center">
            <p className="text-5xl" aria-hidden>🎉</p>
            <h1 className="text-xl font-semibold">You're all set, {businessName.trim()}!</h1>
            <p className="text-sm text-slate-600">
              Next: connect your SMS provider in Phone Settings (or try the built-in simulator), add your customers, and send
              your first campaign.
            </p>
            <Button className="mt-2" onClick={() => navigate({ to: "/dashboard" })}>
              Go to Dashboard
            </Button>
            <p className="text-sm">
              <a href="/license?onboarding" className="text-brand-700 underline" onClick={(e) => { e.preventDefault(); void navigate({ to: "/license", search: { onboarding: "1" } as never }); }}>
                Have a license code? Redeem it now
              </a>
            </p>
          </div>
        )}

        {step < 3 && (
          <div className="mt-6 flex justify-between">
            <Button variant="secondary" disabled={step === 0} onClick={() => setStep(step - 1)}>
              Back
            </Button>
            <Button disabled={!canContinue || saving} onClick={next}>
              {saving ? "Saving..." : "Continue"}
            </Button>
          </div>
        )}
      </Card>
    </div>
  );
}

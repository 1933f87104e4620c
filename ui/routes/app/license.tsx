import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { Badge } from "../../components/badge";
import { Logo } from "../../components/public-layout";
import { Alert, Button, Card, Field, Input } from "../../components/ui";
import { redeemLicenseCode, useCurrentLicense, usePlans, useUsage, type Plan, type Usage } from "../../api/licenses";
import { toast } from "../../lib/toast";
import { submitWith, useMutation } from "../../lib/use-mutation";
import { licenseRoute } from "../../router";

export type { Plan };

export const MAX_CODE_INPUT = 23;

/** What the code field shows: upper-case, groups of 4 separated by dashes, at most 23 characters. */
export function formatCodeInput(value: string): string {
  const raw = value.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return (raw.match(/.{1,4}/g)?.join("-") ?? "").slice(0, MAX_CODE_INPUT);
}

const number = (n: number) => new Intl.NumberFormat().format(n);
const limitText = (n: number) => (n < 0 ? "Unlimited" : number(n));
const FEATURE_NAMES: Record<string, string> = {
  bulk_sms: "Bulk SMS",
  contact_management: "Contact Management",
  two_way_chat: "Two-Way Chat",
  keywords: "Keywords",
  templates: "Templates",
  basic_analytics: "Basic Analytics",
  advanced_analytics: "Advanced Analytics",
  automation: "Automation",
  segments: "Segments",
  api_access: "API Access",
  webhooks: "Webhooks",
  priority_support: "Priority Support",
  dedicated_onboarding: "Dedicated Onboarding",
};
/** A plan's feature as a name; one an administrator added is title-cased from its key. */
export const featureName = (f: string) => FEATURE_NAMES[f] ?? f.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
const dollars = (cents: number) => `$${(cents / 100).toLocaleString(undefined, { minimumFractionDigits: cents % 100 ? 2 : 0 })}`;
const date = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });

function UsageLine({ label, figure, unit }: { label: string; figure: Usage["contacts"]; unit: string }) {
  const pct = figure.unlimited || figure.limit <= 0 ? 0 : Math.min(100, (figure.used / figure.limit) * 100);
  const warn = !figure.unlimited && figure.limit > 0 && figure.used >= figure.limit * 0.8;
  return (
    <div className="space-y-1" data-testid={`usage-${unit}`}>
      <div className="flex justify-between text-sm">
        <span className="text-slate-600">{label}</span>
        <span className="font-medium">
          {number(figure.used)} / {figure.unlimited ? "Unlimited" : number(figure.limit)}
        </span>
      </div>
      {!figure.unlimited && (
        <div
          className="h-2 rounded-full bg-slate-100"
          role="progressbar"
          aria-label={label}
          aria-valuenow={Math.round(pct)}
          aria-valuemin={0}
          aria-valuemax={100}
        >
          <div className={`h-2 rounded-full ${warn ? "bg-amber-500" : "bg-brand-600"}`} style={{ width: `${pct}%` }} />
        </div>
      )}
      {warn && (
        <p className="text-xs text-amber-700" data-testid={`notice-${unit}`}>
          {figure.notice ??
            `You have used ${Math.floor(pct)}% of your ${unit} limit. Upgrade your plan or redeem a license code before you reach it.`}
        </p>
      )}
    </div>
  );
}

/** The redeem form of /license: toasts 'License Activated!', 'Redemption Failed', 'Invalid Code'. */
function RedeemForm({ onRedeemed }: { onRedeemed: () => void }) {
  const [code, setCode] = useState("");
  const redeem = useMutation(redeemLicenseCode, {
    onSuccess: () => {
      setCode("");
      onRedeemed();
    },
    success: (answer) => ({ title: "License Activated!", description: `Your ${answer.data.planName} plan is now active.` }),
    fallback: "Failed to redeem license code",
    failureToast: "Redemption Failed",
  });
  const { busy } = redeem;
  const submit = () => {
    const licenseCode = code.replace(/-/g, "").trim();
    if (!licenseCode) {
      toast({ title: "Invalid Code", description: "Please enter a valid license code", variant: "destructive" });
      return;
    }
    return redeem.run(licenseCode);
  };
  return (
    <form onSubmit={submitWith(submit)} className="space-y-3">
      <Field
        label="License code"
        htmlFor="license-code"
        hint="Codes from deal platforms and your administrator, e.g. ABCD-EFGH-JKLM-NPQR."
      >
        <Input
          id="license-code"
          value={code}
          maxLength={MAX_CODE_INPUT}
          autoComplete="off"
          spellCheck={false}
          placeholder="XXXX-XXXX-XXXX-XXXX"
          className="font-mono tracking-wider"
          onChange={(e) => setCode(formatCodeInput(e.target.value))}
        />
      </Field>
      <Button type="submit" disabled={busy}>
        {busy ? "Redeeming..." : "Redeem Code"}
      </Button>
    </form>
  );
}

export function PlanCards({ plans, currentPlanId }: { plans: Plan[]; currentPlanId?: string }) {
  return (
    <div className="grid gap-4 md:grid-cols-3">
      {plans.map((p) => (
        <Card key={p.id} className={`p-5 ${p.id === currentPlanId ? "ring-2 ring-brand-500" : ""}`}>
          <div className="flex items-baseline justify-between">
            <h3 className="text-lg font-semibold">{p.name}</h3>
            {p.id === currentPlanId && <Badge tone="brand">Current</Badge>}
          </div>
          <p className="mt-1 text-2xl font-bold">
            {dollars(p.price)}
            <span className="text-sm font-normal text-slate-500"> per month</span>
          </p>
          <ul className="mt-3 space-y-1 text-sm text-slate-600">
            <li>{limitText(p.monthlyContacts)} contacts</li>
            <li>{limitText(p.monthlyMessages)} SMS per month</li>
            <li>
              {limitText(p.phoneNumbers)} phone number{p.phoneNumbers === 1 ? "" : "s"}
            </li>
          </ul>
          <ul className="mt-3 space-y-1 text-sm">
            {p.features.slice(0, 3).map((f) => (
              <li key={f}>✓ {featureName(f)}</li>
            ))}
            {p.features.length > 3 && <li className="text-slate-500">+{p.features.length - 3} more</li>}
          </ul>
        </Card>
      ))}
    </div>
  );
}

/** /license: the license in force with usage, the redeem form and the plans. /license?onboarding: the prompt. */
export function LicensePage() {
  if (licenseRoute.useSearch().onboarding) return <LicenseOnboarding />;
  return <LicenseManagement />;
}

function LicenseManagement() {
  const current = useCurrentLicense();
  const usage = useUsage();
  const plans = usePlans();
  const reload = () => {
    void current.reload();
    void usage.reload();
  };
  const license = current.data?.data ?? null;
  const u = usage.data?.data;

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">License</h1>
        <p className="text-slate-600">Your plan, its limits and what you have used.</p>
      </div>

      <Card className="p-6">
        <h2 className="mb-4 text-lg font-semibold">Current License</h2>
        {current.loading || usage.loading ? (
          <p className="text-slate-500">Loading license information...</p>
        ) : current.error ? (
          <Alert>{current.error.message}</Alert>
        ) : license ? (
          <div className="space-y-4" data-testid="current-license">
            <div className="flex flex-wrap items-baseline gap-3">
              <p className="text-xl font-semibold" data-testid="license-plan">
                {license.plan.name}
              </p>
              {license.source === "trial" && <Badge tone="amber">Free trial</Badge>}
              <p className="text-sm text-slate-600">
                {license.expiresAt ? `Expires ${date(license.expiresAt)}` : "Does not expire"}
              </p>
            </div>
            {u && (
              <div className="grid gap-4 md:grid-cols-2">
                <UsageLine label="Contacts" figure={u.contacts} unit="contacts" />
                <UsageLine label="Messages this month" figure={u.messages} unit="messages" />
              </div>
            )}
          </div>
        ) : (
          <Alert>No active license found. Please redeem a license code to access premium features.</Alert>
        )}
      </Card>

      <Card className="p-6">
        <h2 className="mb-4 text-lg font-semibold">Redeem License Code</h2>
        <RedeemForm onRedeemed={reload} />
      </Card>

      <section className="space-y-3">
        <h2 className="text-lg font-semibold">Available Plans</h2>
        {plans.loading ? (
          <p className="text-slate-500">Loading plans...</p>
        ) : (
          <PlanCards plans={plans.data?.data ?? []} currentPlanId={license?.plan.id} />
        )}
      </section>
    </div>
  );
}

/** The onboarding license prompt (platform.md 2.8): entry, then 'License Activated!'. */
export function LicenseOnboarding() {
  const navigate = useNavigate();
  const [code, setCode] = useState("");
  const [activated, setActivated] = useState<string | null>(null);
  // The api helper already turns an unreadable answer into 'Invalid response from server'.
  const redeem = useMutation(redeemLicenseCode, {
    onSuccess: (answer) => setActivated(answer.data.planName),
    success: (answer) => ({ title: "License Activated!", description: `Your ${answer.data.planName} plan is now active.` }),
    fallback: "Failed to redeem license code",
  });
  const { busy, error, setError } = redeem;

  const submit = () => {
    const licenseCode = code.trim().toUpperCase();
    if (!licenseCode) return setError("Please enter a license code");
    return redeem.run(licenseCode);
  };

  return (
    <div className="flex min-h-[70vh] items-center justify-center">
      <Card className="w-full max-w-md p-6">
        <div className="mb-4 flex justify-center">
          <Logo />
        </div>
        {activated ? (
          <div className="space-y-4 text-center">
            <h1 className="text-xl font-semibold">License Activated!</h1>
            <p className="text-slate-600">Your {activated} plan is active. Enjoy every feature it includes.</p>
            <Button className="w-full" onClick={() => navigate({ to: "/" })}>
              Go to Dashboard
            </Button>
          </div>
        ) : (
          <form className="space-y-4" onSubmit={submitWith(submit)}>
            <div className="text-center">
              <h1 className="text-xl font-semibold">Welcome! Do you have a license code?</h1>
              <p className="mt-1 text-sm text-slate-600">
                Redeem it now to unlock your plan, or continue with your 14-day free trial.
              </p>
            </div>
            {error && <Alert>{error}</Alert>}
            <Field label="License code" htmlFor="onboarding-license-code">
              <Input
                id="onboarding-license-code"
                value={code}
                maxLength={MAX_CODE_INPUT}
                autoComplete="off"
                className="font-mono tracking-wider"
                placeholder="XXXX-XXXX-XXXX-XXXX"
                onChange={(e) => setCode(e.target.value.toUpperCase())}
              />
            </Field>
            <div className="flex gap-3">
              <Button variant="secondary" className="flex-1" onClick={() => navigate({ to: "/" })}>
                Skip for now
              </Button>
              <Button type="submit" className="flex-1" disabled={busy}>
                {busy ? "Redeeming..." : "Redeem Code"}
              </Button>
            </div>
            <p className="text-center text-xs text-slate-500">
              You can also redeem a code later on the{" "}
              <Link to="/license" className="text-brand-700 underline">
                License
              </Link>{" "}
              page.
            </p>
          </form>
        )}
      </Card>
    </div>
  );
}

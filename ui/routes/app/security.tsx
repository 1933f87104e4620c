import { useSignals } from "@preact/signals-react/runtime";
import { Card } from "../../components/ui";
import { auth } from "../../lib/auth";
import { PasskeysSection } from "./security/passkeys-section";
import { PasswordSection } from "./security/password-section";
import { SessionsSection } from "./security/sessions-section";
import { TwoFactorSection } from "./security/two-factor-section";

const TIPS = [
  "Use a password you use nowhere else, at least 12 characters long.",
  "Turn on two-factor authentication and keep your backup codes somewhere safe, offline.",
  "Add a passkey on each device you sign in from: nothing to type, nothing to steal.",
  "Sign out on shared computers, and never share your sign-in code with anyone who calls or texts you.",
];

export function SecurityPage() {
  useSignals();
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold">Security</h1>
        <p className="text-slate-600">Protect your account and your customers' data.</p>
      </div>
      {auth.value.user?.authProvider === "password" && <PasswordSection />}
      <TwoFactorSection />
      <PasskeysSection />
      <SessionsSection />
      <Card className="p-6">
        <h2 className="text-lg font-semibold">Security tips</h2>
        <ul className="mt-3 list-disc space-y-1 pl-5 text-sm text-slate-600">
          {TIPS.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
      </Card>
    </div>
  );
}

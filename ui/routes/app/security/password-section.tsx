import { useState } from "react";
import { Alert, Button, Card, Field } from "../../../components/ui";
import { changePassword } from "../../../api/users";
import { useSessions } from "../../../api/security";
import { KeepCredentials } from "./keep-credentials";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { PasswordInput } from "../../auth/auth-forms";

const MIN_PASSWORD_LENGTH = 6;

/**
 * Changing the password on /settings/security (password accounts only): every other session is signed out, and the
 * API keys and webhooks they set up are revoked unless the owner keeps them.
 */
export function PasswordSection() {
  const [form, setForm] = useState({ current: "", next: "", confirm: "" });
  const [keep, setKeep] = useState(false);
  const sessions = useSessions();
  const madeElsewhere = (sessions.data?.sessions ?? []).filter((s) => !s.current).flatMap((s) => s.credentials);
  const change = useMutation(() => changePassword(form.current, form.next, form.confirm, keep), {
    onSuccess: async () => {
      setForm({ current: "", next: "", confirm: "" });
      setKeep(false);
      await sessions.reload();
    },
    success: (answer) => ({ title: "Password changed", description: answer.message }),
    fallback: "Failed to change your password",
  });
  const { busy, error, setError } = change;
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));

  const submit = () => {
    if (!form.current) return setError("Please enter your current password");
    if (form.next.length < MIN_PASSWORD_LENGTH)
      return setError(`Password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
    if (form.next !== form.confirm) return setError("Passwords do not match");
    return change.run();
  };

  return (
    <Card className="p-6">
      <section aria-labelledby="password-heading" className="space-y-4">
        <div>
          <h2 id="password-heading" className="text-lg font-semibold">
            Password
          </h2>
          <p className="text-sm text-slate-600">Changing it signs you out everywhere else.</p>
        </div>
        <form onSubmit={submitWith(submit)} className="max-w-md space-y-3" noValidate>
          {error && <Alert>{error}</Alert>}
          <Field label="Current password" htmlFor="password-current">
            <PasswordInput id="password-current" autoComplete="current-password" value={form.current} onChange={set("current")} />
          </Field>
          <Field label="New password" htmlFor="password-new">
            <PasswordInput id="password-new" autoComplete="new-password" value={form.next} onChange={set("next")} />
          </Field>
          <Field label="Confirm new password" htmlFor="password-confirm">
            <PasswordInput id="password-confirm" autoComplete="new-password" value={form.confirm} onChange={set("confirm")} />
          </Field>
          <KeepCredentials id="password-keep-credentials" credentials={madeElsewhere} keep={keep} onChange={setKeep} />
          <Button type="submit" disabled={busy}>
            {busy ? "Changing..." : "Change Password"}
          </Button>
        </form>
      </section>
    </Card>
  );
}

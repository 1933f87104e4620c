import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { Alert, Button, Field } from "../../components/ui";
import { resetPassword } from "../../api/auth";
import { submitWith, useMutation } from "../../lib/use-mutation";
import { resetPasswordRoute } from "../../router";
import { PasswordInput } from "./auth-forms";
import { AuthShell } from "./auth-page";
import { KeepCredentials } from "../app/security/keep-credentials";

export function ResetPasswordPage() {
  const { token } = resetPasswordRoute.useSearch();
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [keep, setKeep] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  // Run only from the form below, which shows only with a token.
  const reset = useMutation(() => resetPassword(token ?? "", password, confirm, keep), {
    onSuccess: (answer) => setDone(answer.message),
    fallback: "Failed to reset password",
    failureToast: "Failed to reset password",
  });
  const { busy, error, setError } = reset;

  if (!token) {
    return (
      <AuthShell>
        <h1 className="text-xl font-semibold">Invalid Reset Link</h1>
        <p className="mt-2 text-sm text-slate-600">This link is missing its reset token. Request a new one to continue.</p>
        <div className="mt-6 space-y-2">
          <Link to="/auth/forgot-password" className="block rounded-lg bg-brand-600 px-4 py-2 text-center text-sm font-medium text-white">
            Request New Reset Link
          </Link>
          <Link to="/auth" className="block text-center text-sm text-brand-700 hover:underline">
            Back to Sign In
          </Link>
        </div>
      </AuthShell>
    );
  }

  if (done) {
    return (
      <AuthShell>
        <h1 className="text-xl font-semibold">Password reset</h1>
        <p className="mt-2 text-sm text-slate-600" data-testid="reset-done">
          {done}
        </p>
        <Link to="/auth" className="mt-6 block rounded-lg bg-brand-600 px-4 py-2 text-center text-sm font-medium text-white">
          Sign In Now
        </Link>
      </AuthShell>
    );
  }

  const submit = submitWith(() => {
    if (!password) return setError("Please enter a new password");
    if (password.length < 6) return setError("Password must be at least 6 characters long");
    if (password !== confirm) return setError("Passwords do not match");
    return reset.run();
  });

  return (
    <AuthShell>
      <h1 className="mb-4 text-xl font-semibold">Choose a new password</h1>
      <form onSubmit={submit} className="space-y-4" noValidate>
        {error && <Alert>{error}</Alert>}
        <Field label="New password" htmlFor="reset-password">
          <PasswordInput id="reset-password" autoComplete="new-password" value={password} onChange={setPassword} />
        </Field>
        <Field label="Confirm password" htmlFor="reset-confirm">
          <PasswordInput id="reset-confirm" autoComplete="new-password" value={confirm} onChange={setConfirm} />
        </Field>
        <p className="text-sm text-slate-600">Every session of your account is signed out.</p>
        <KeepCredentials id="reset-keep-credentials" credentials={null} keep={keep} onChange={setKeep} />
        <Button type="submit" className="w-full" disabled={busy}>
          {busy ? "Saving..." : "Reset Password"}
        </Button>
      </form>
    </AuthShell>
  );
}

import { useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { Logo } from "../../components/public-layout";
import { Button, Card, Field, Input } from "../../components/ui";
import { adminSignIn } from "../../api/admin";
import { setUser } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { submitWith, useMutation } from "../../lib/use-mutation";

/** /admin: the administrator portal's own sign-in, with the optional 2FA step. No demo credentials. */
export function AdminLoginPage() {
  const navigate = useNavigate();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [showPassword, setShowPassword] = useState(false);
  const [twoFactorCode, setTwoFactorCode] = useState("");
  const [requires2FA, setRequires2FA] = useState(false);
  const signIn = useMutation(
    async () => {
      const answer = await adminSignIn(email.trim(), password, twoFactorCode.trim() || undefined);
      if (answer.requires2FA && !answer.token) return "code needed";
      if (!answer.token) throw new Error("Invalid admin credentials");
      if (answer.user) setUser(answer.user);
      return "signed in";
    },
    {
      onSuccess: async (step) => {
        if (step === "code needed") setRequires2FA(true);
        else await navigate({ to: "/admin/dashboard" });
      },
      success: (step) =>
        step === "code needed"
          ? { title: "Two-factor authentication", description: "Enter the 6-digit code from your authenticator app." }
          : { title: "Admin Access Granted", description: "Welcome to the administrator portal." },
      fallback: "Invalid admin credentials",
      failureToast: "Access Denied",
    },
  );

  const submit = () => {
    if (!email.trim() || !password) {
      toast({ title: "Missing Information", description: "Please enter both email and password", variant: "destructive" });
      return;
    }
    return signIn.run();
  };

  return (
    <div className="flex min-h-screen items-center justify-center bg-slate-900 p-4">
      <Card className="w-full max-w-sm p-6">
        <div className="mb-6 space-y-2 text-center">
          <div className="flex justify-center">
            <Logo />
          </div>
          <h1 className="text-2xl font-bold">Admin Portal</h1>
          <p className="text-sm text-slate-600">Sign in with an administrator account.</p>
        </div>
        <form className="space-y-4" onSubmit={submitWith(submit)} noValidate>
          <Field label="Email" htmlFor="admin-email">
            <Input
              id="admin-email"
              type="email"
              autoComplete="username"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </Field>
          <Field label="Password" htmlFor="admin-password">
            <div className="relative">
              <Input
                id="admin-password"
                type={showPassword ? "text" : "password"}
                autoComplete="current-password"
                className="pr-16"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
              <button
                type="button"
                className="absolute inset-y-0 right-2 my-auto h-7 rounded px-2 text-xs text-slate-600 hover:bg-slate-100"
                aria-label={showPassword ? "Hide password" : "Show password"}
                onClick={() => setShowPassword((s) => !s)}
              >
                {showPassword ? "Hide" : "Show"}
              </button>
            </div>
          </Field>
          <Field
            label={requires2FA ? "2FA code" : "2FA code (if enabled)"}
            htmlFor="admin-2fa"
            hint={requires2FA ? "Two-factor authentication is on for this account." : undefined}
          >
            <Input
              id="admin-2fa"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              value={twoFactorCode}
              autoFocus={requires2FA}
              onChange={(e) => setTwoFactorCode(e.target.value.slice(0, 6))}
            />
          </Field>
          <Button type="submit" className="w-full" disabled={signIn.busy}>
            {signIn.busy ? "Signing in..." : requires2FA ? "Verify 2FA" : "Sign In"}
          </Button>
        </form>
      </Card>
    </div>
  );
}

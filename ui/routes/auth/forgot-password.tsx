import { Link } from "@tanstack/react-router";
import { ForgotPasswordForm } from "./auth-forms";
import { AuthShell } from "./auth-page";

export function ForgotPasswordPage() {
  return (
    <AuthShell>
      <h1 className="mb-4 text-xl font-semibold">Forgot your password?</h1>
      <ForgotPasswordForm />
      <Link to="/auth" className="mt-4 block text-center text-sm text-brand-700 hover:underline">
        Back to Sign In
      </Link>
    </AuthShell>
  );
}

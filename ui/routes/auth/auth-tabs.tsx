import { useState } from "react";
import { cx } from "../../components/ui";
import type { AuthTab } from "../../lib/auth-modal";
import { ForgotPasswordForm, SignInForm, SignUpForm } from "./auth-forms";
import { ContinueWithGoogle } from "./google-button";

/** Sign In / Sign Up tabs with the inline forgot-password view, shared by the modal and /auth. */
export function AuthTabs(props: { initialTab: AuthTab; onSignedIn: () => void; onRegistered: () => void }) {
  const [tab, setTab] = useState<AuthTab | "forgot">(props.initialTab);
  if (tab === "forgot") return <ForgotPasswordForm onBack={() => setTab("signin")} />;
  return (
    <div>
      <div role="tablist" className="mb-5 grid grid-cols-2 rounded-lg bg-slate-100 p-1">
        {(["signin", "signup"] as const).map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={tab === t}
            className={cx("rounded-md py-2 text-sm font-medium", tab === t ? "bg-white shadow-sm" : "text-slate-600")}
            onClick={() => setTab(t)}
          >
            {t === "signin" ? "Sign In" : "Sign Up"}
          </button>
        ))}
      </div>
      <ContinueWithGoogle />
      {tab === "signin" ? (
        <SignInForm onSignedIn={props.onSignedIn} onForgot={() => setTab("forgot")} />
      ) : (
        <SignUpForm onRegistered={props.onRegistered} />
      )}
    </div>
  );
}

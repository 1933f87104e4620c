import { useState } from "react";
import { TabPanel, Tabs, type TabItem } from "../../components/tabs";
import type { AuthTab } from "../../lib/auth-modal";
import { ForgotPasswordForm, SignInForm, SignUpForm } from "./auth-forms";
import { ContinueWithGoogle } from "./google-button";

const TABS: TabItem<AuthTab>[] = [
  { value: "signin", label: "Sign In" },
  { value: "signup", label: "Sign Up" },
];

/** Sign In / Sign Up tabs with the inline forgot-password view, shared by the modal and /auth (which hands its ?next). */
export function AuthTabs(props: { initialTab: AuthTab; onSignedIn: () => void; onRegistered: () => void; next?: string }) {
  const [tab, setTab] = useState<AuthTab | "forgot">(props.initialTab);
  if (tab === "forgot") return <ForgotPasswordForm onBack={() => setTab("signin")} />;
  return (
    <div>
      <Tabs
        tabs={TABS}
        value={tab}
        onChange={setTab}
        label="Sign in or sign up"
        idPrefix="auth"
        variant="pill"
        fill
        className="mb-5"
      />
      <ContinueWithGoogle next={props.next} />
      <TabPanel idPrefix="auth" value={tab}>
        {tab === "signin" ? (
          <SignInForm onSignedIn={props.onSignedIn} onForgot={() => setTab("forgot")} />
        ) : (
          <SignUpForm onRegistered={props.onRegistered} />
        )}
      </TabPanel>
    </div>
  );
}

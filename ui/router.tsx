import { useSignals } from "@preact/signals-react/runtime";
import { createRootRoute, createRoute, createRouter, Outlet } from "@tanstack/react-router";
import type { ComponentType } from "react";
import { AuthGate } from "./components/auth-gate";
import { AppLayout } from "./components/app-layout";
import { NotAvailable, NotFound } from "./components/not-found";
import { OfflineBanner } from "./components/offline-banner";
import { PublicLayout } from "./components/public-layout";
import { Toaster } from "./components/toaster";
import { UncaughtErrorCard } from "./components/uncaught-error-card";
import { FullScreenLoader } from "./components/ui";
import { auth } from "./lib/auth";
import { BackupManagerPage } from "./routes/admin/backup-manager/backup-manager-page";
import { AdminDashboardPage } from "./routes/admin/dashboard/dashboard-page";
import { AdminLoginPage } from "./routes/admin/login";
import { CampaignsPage, CampaignWizardPage } from "./routes/app/campaigns/campaigns-page";
import { ArchivedChatPage, ChatPage } from "./routes/app/chat/chat-page";
import { ContactsPage } from "./routes/app/contacts/contacts-page";
import { HomePage } from "./routes/app/home";
import { IntegrationsPage } from "./routes/app/integrations/integrations-page";
import { KeywordsPage } from "./routes/app/keywords/keywords-page";
import { LicensePage } from "./routes/app/license";
import { OnboardingPage } from "./routes/app/onboarding";
import { PhoneSettingsPage } from "./routes/app/phone-settings/phone-settings-page";
import { RealTimeDemoPage } from "./routes/app/real-time-demo/real-time-demo-page";
import { SegmentsPage } from "./routes/app/segments/segments-page";
import { TemplatesPage } from "./routes/app/templates/templates-page";
import { AutomationPage } from "./routes/app/automation/automation-page";
import { AdvancedSmsPage } from "./routes/app/advanced-sms/advanced-sms-page";
import { SecurityPage } from "./routes/app/security";
import { SentMessagesPage } from "./routes/app/sent-messages/sent-messages-page";
import { SettingsPage } from "./routes/app/settings";
import { WebhookSettingsPage } from "./routes/app/webhook-settings";
import { AuthPage } from "./routes/auth/auth-page";
import { ForgotPasswordPage } from "./routes/auth/forgot-password";
import { ResetPasswordPage } from "./routes/auth/reset-password";
import { AboutPage } from "./routes/public/about";
import { ContactPage } from "./routes/public/contact";
import { FeaturesPage } from "./routes/public/features";
import { HelpPage } from "./routes/public/help";
import { LandingPage } from "./routes/public/landing";
import { PricingPage } from "./routes/public/pricing";
import { PrivacyPage } from "./routes/public/privacy";
import { SmsTipsPage } from "./routes/public/sms-tips";
import { TermsPage } from "./routes/public/terms";

const rootRoute = createRootRoute({
  component: () => (
    <>
      <Outlet />
      <Toaster />
      <UncaughtErrorCard />
      <OfflineBanner />
    </>
  ),
  notFoundComponent: NotFoundPage,
});

/** An unknown address: inside the app (sidebar kept) for a signed-in user, else on the public site. */
function NotFoundPage() {
  useSignals();
  const { status, user } = auth.value;
  if (status === "loading") return <FullScreenLoader text="Authenticating..." />;
  if (status === "signed-in" && user?.emailVerified) {
    return (
      <AppLayout>
        <NotFound signedIn />
      </AppLayout>
    );
  }
  return (
    <PublicLayout>
      <NotFound />
    </PublicLayout>
  );
}

const page = (path: string, component: () => React.ReactNode) =>
  createRoute({ getParentRoute: () => rootRoute, path, component });
const publicPage = (path: string, Page: ComponentType) =>
  page(path, () => (
    <PublicLayout>
      <Page />
    </PublicLayout>
  ));
const signedInPage = (path: string, Page: ComponentType, bare = false) =>
  page(path, () => (
    <AuthGate bare={bare}>
      <Page />
    </AuthGate>
  ));

/**
 * Screens the spec names that this version does not have. They are left out of the sidebar (a menu entry that
 * leads nowhere wastes a paying user's click); an old link or bookmark to one lands on an honest page inside the app.
 */
const notYet = (path: string, title: string, instead?: { to: string; label: string }) =>
  signedInPage(path, () => <NotAvailable title={title} instead={instead} />);

/** "/" is the landing page for visitors and the simple home once signed in. */
function RootIndex() {
  useSignals();
  const { status } = auth.value;
  if (status === "loading") return <FullScreenLoader text="Authenticating..." />;
  if (status === "signed-out") {
    return (
      <PublicLayout>
        <LandingPage />
      </PublicLayout>
    );
  }
  return (
    <AuthGate>
      <HomePage />
    </AuthGate>
  );
}

const routeTree = rootRoute.addChildren([
  page("/", RootIndex),
  signedInPage("/simple", HomePage),
  page("/auth", AuthPage),
  page("/auth/forgot-password", ForgotPasswordPage),
  page("/auth/reset-password", ResetPasswordPage),
  publicPage("/about", AboutPage),
  publicPage("/features", FeaturesPage),
  publicPage("/pricing", PricingPage),
  publicPage("/contact", ContactPage),
  publicPage("/help", HelpPage),
  publicPage("/privacy", PrivacyPage),
  publicPage("/terms", TermsPage),
  publicPage("/sms-tips", SmsTipsPage),
  signedInPage("/welcome", OnboardingPage, true),
  signedInPage("/onboarding", OnboardingPage, true),
  signedInPage("/settings", SettingsPage),
  signedInPage("/license", LicensePage),
  signedInPage("/contact-lists", ContactsPage),
  signedInPage("/segments", SegmentsPage),
  signedInPage("/templates", TemplatesPage),
  signedInPage("/automation", AutomationPage),
  signedInPage("/advanced-sms", AdvancedSmsPage),
  page("/admin", AdminLoginPage),
  signedInPage("/admin/dashboard", AdminDashboardPage),
  signedInPage("/settings/security", SecurityPage),
  signedInPage("/sms-campaigns", CampaignsPage),
  signedInPage("/campaigns", CampaignsPage),
  signedInPage("/send-message", CampaignsPage),
  signedInPage("/simple-campaign-wizard", CampaignWizardPage),
  signedInPage("/sent-messages", SentMessagesPage),
  signedInPage("/analytics", SentMessagesPage),
  signedInPage("/phone-settings", PhoneSettingsPage),
  signedInPage("/settings/phone", PhoneSettingsPage),
  signedInPage("/settings/webhook", WebhookSettingsPage),
  signedInPage("/chat", ChatPage),
  signedInPage("/chat/archived", ArchivedChatPage),
  notYet("/dashboard", "Results & Stats", { to: "/sent-messages", label: "See Sent Messages" }),
  signedInPage("/keywords", KeywordsPage),
  signedInPage("/integrations", IntegrationsPage),
  notYet("/email-campaigns", "Email Marketing", { to: "/sms-campaigns", label: "Send a text campaign" }),
  signedInPage("/admin/backup-manager", BackupManagerPage),
  signedInPage("/real-time-demo", RealTimeDemoPage),
]);

export const router = createRouter({ routeTree, defaultPreload: "intent", scrollRestoration: true });

import { useSignals } from "@preact/signals-react/runtime";
import { createRootRoute, createRoute, createRouter, Outlet } from "@tanstack/react-router";
import { Suspense, useEffect, useState, type ComponentType, type ReactNode } from "react";
import { NotFound } from "./components/not-found";
import { OfflineBanner } from "./components/offline-banner";
import { PublicLayout } from "./components/public-layout";
import { Toaster } from "./components/toaster";
import { ReauthDialog } from "./components/reauth-dialog";
import { UncaughtErrorCard } from "./components/uncaught-error-card";
import { FullScreenLoader } from "./components/ui";
import { InstallCard } from "./components/install-card";
import { NavigateHref } from "./components/navigate-href";
import { UpdatePrompt } from "./components/update-prompt";
import { auth } from "./lib/auth";
import { lazyNamed } from "./lib/lazy-page";
import { forgetNextAfterGoogle, nextAfterGoogle } from "./lib/next-path";
import { authSearch, automationSearch, homeSearch, licenseSearch, resetPasswordSearch, wizardSearch } from "./lib/search";
import { LandingPage } from "./routes/public/landing";

// Every screen but the landing page is its own chunk, and so is the signed-in layout (the chat, the sidebar and
// what they import): the public pages load none of it, and /chat and /admin/* load on demand.
const AuthGate = lazyNamed(() => import("./components/auth-gate"), "AuthGate");
const AppLayout = lazyNamed(() => import("./components/app-layout"), "AppLayout");
const BackupManagerPage = lazyNamed(() => import("./routes/admin/backup-manager/backup-manager-page"), "BackupManagerPage");
const AdminDashboardPage = lazyNamed(() => import("./routes/admin/dashboard/dashboard-page"), "AdminDashboardPage");
const AdminLoginPage = lazyNamed(() => import("./routes/admin/login"), "AdminLoginPage");
const CampaignsPage = lazyNamed(() => import("./routes/app/campaigns/campaigns-page"), "CampaignsPage");
const CampaignWizardPage = lazyNamed(() => import("./routes/app/campaigns/campaigns-page"), "CampaignWizardPage");
const ArchivedChatPage = lazyNamed(() => import("./routes/app/chat/chat-page"), "ArchivedChatPage");
const ChatPage = lazyNamed(() => import("./routes/app/chat/chat-page"), "ChatPage");
const ContactsPage = lazyNamed(() => import("./routes/app/contacts/contacts-page"), "ContactsPage");
const HomePage = lazyNamed(() => import("./routes/app/home"), "HomePage");
const AdvancedHomePage = lazyNamed(() => import("./routes/app/advanced-home/advanced-home-page"), "AdvancedHomePage");
const DashboardPage = lazyNamed(() => import("./routes/app/dashboard/dashboard-page"), "DashboardPage");
const IntegrationsPage = lazyNamed(() => import("./routes/app/integrations/integrations-page"), "IntegrationsPage");
const KeywordsPage = lazyNamed(() => import("./routes/app/keywords/keywords-page"), "KeywordsPage");
const LicensePage = lazyNamed(() => import("./routes/app/license"), "LicensePage");
const OnboardingPage = lazyNamed(() => import("./routes/app/onboarding"), "OnboardingPage");
const PhoneSettingsPage = lazyNamed(() => import("./routes/app/phone-settings/phone-settings-page"), "PhoneSettingsPage");
const RealTimeDemoPage = lazyNamed(() => import("./routes/app/real-time-demo/real-time-demo-page"), "RealTimeDemoPage");
const SegmentsPage = lazyNamed(() => import("./routes/app/segments/segments-page"), "SegmentsPage");
const TemplatesPage = lazyNamed(() => import("./routes/app/templates/templates-page"), "TemplatesPage");
const AutomationPage = lazyNamed(() => import("./routes/app/automation/automation-page"), "AutomationPage");
const AdvancedSmsPage = lazyNamed(() => import("./routes/app/advanced-sms/advanced-sms-page"), "AdvancedSmsPage");
const SecurityPage = lazyNamed(() => import("./routes/app/security"), "SecurityPage");
const SentMessagesPage = lazyNamed(() => import("./routes/app/sent-messages/sent-messages-page"), "SentMessagesPage");
const SettingsPage = lazyNamed(() => import("./routes/app/settings"), "SettingsPage");
const WebhookSettingsPage = lazyNamed(() => import("./routes/app/webhook-settings"), "WebhookSettingsPage");
const AuthPage = lazyNamed(() => import("./routes/auth/auth-page"), "AuthPage");
const ForgotPasswordPage = lazyNamed(() => import("./routes/auth/forgot-password"), "ForgotPasswordPage");
const ResetPasswordPage = lazyNamed(() => import("./routes/auth/reset-password"), "ResetPasswordPage");
const AboutPage = lazyNamed(() => import("./routes/public/about"), "AboutPage");
const ContactPage = lazyNamed(() => import("./routes/public/contact"), "ContactPage");
const FeaturesPage = lazyNamed(() => import("./routes/public/features"), "FeaturesPage");
const HelpPage = lazyNamed(() => import("./routes/public/help"), "HelpPage");
const PricingPage = lazyNamed(() => import("./routes/public/pricing"), "PricingPage");
const PrivacyPage = lazyNamed(() => import("./routes/public/privacy"), "PrivacyPage");
const SmsTipsPage = lazyNamed(() => import("./routes/public/sms-tips"), "SmsTipsPage");
const TermsPage = lazyNamed(() => import("./routes/public/terms"), "TermsPage");
const PwaDemoPage = lazyNamed(() => import("./routes/app/pwa-demo/pwa-demo-page"), "PwaDemoPage");
const TestErrorDemoPage = lazyNamed(() => import("./routes/app/test-error-demo/test-error-demo-page"), "TestErrorDemoPage");
const EmailCampaignsPage = lazyNamed(() => import("./routes/app/email-campaigns/email-campaigns-page"), "EmailCampaignsPage");

const rootRoute = createRootRoute({
  component: () => (
    <>
      <Outlet />
      <Toaster />
      <ReauthDialog />
      <UncaughtErrorCard />
      <OfflineBanner />
      <InstallCard />
      <UpdatePrompt />
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
      <Loading screen>
        <AppLayout>
          <NotFound signedIn />
        </AppLayout>
      </Loading>
    );
  }
  return (
    <PublicLayout>
      <NotFound />
    </PublicLayout>
  );
}

/**
 * Where a screen's chunk is still loading: the whole screen for a first render, else only the page's own area, so
 * the site's header or the app's sidebar stays put while the next screen arrives.
 */
function Loading({ screen = false, children }: { screen?: boolean; children: ReactNode }) {
  const fallback = screen ? (
    <FullScreenLoader text="Loading..." />
  ) : (
    <div className="flex min-h-[40vh] items-center justify-center text-sm text-slate-500">Loading...</div>
  );
  return <Suspense fallback={fallback}>{children}</Suspense>;
}

const screen = (Screen: () => React.ReactNode) => () => (
  <Loading screen>
    <Screen />
  </Loading>
);
const signedIn = (Page: ComponentType, bare = false) =>
  screen(() => (
    <AuthGate bare={bare}>
      <Loading>
        <Page />
      </Loading>
    </AuthGate>
  ));
const page = (path: string, Screen: () => React.ReactNode) => createRoute({ getParentRoute: () => rootRoute, path, component: screen(Screen) });
const publicPage = (path: string, Page: ComponentType) =>
  page(path, () => (
    <PublicLayout>
      <Loading>
        <Page />
      </Loading>
    </PublicLayout>
  ));
const signedInPage = (path: string, Page: ComponentType, bare = false) =>
  createRoute({ getParentRoute: () => rootRoute, path, component: signedIn(Page, bare) });

// The routes whose screens read search parameters: each screen imports its route for the typed useSearch().
export const automationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/automation",
  validateSearch: automationSearch,
  component: signedIn(AutomationPage),
});
export const licenseRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/license",
  validateSearch: licenseSearch,
  component: signedIn(LicensePage),
});
export const wizardRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/simple-campaign-wizard",
  validateSearch: wizardSearch,
  component: signedIn(CampaignWizardPage),
});
export const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/auth/reset-password",
  validateSearch: resetPasswordSearch,
  component: screen(ResetPasswordPage),
});
export const authRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/auth",
  validateSearch: authSearch,
  component: screen(AuthPage),
});
export const homeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  validateSearch: homeSearch,
  component: screen(RootIndex),
});

/** "/" is the landing page for visitors and the simple home once signed in. */
function RootIndex() {
  useSignals();
  const { status } = auth.value;
  // Google's sign-in lands here (/?auth=google; a new account goes to the setup wizard first); the page that sent
  // the user to sign in waits in the tab.
  const google = homeRoute.useSearch().auth === "google";
  const [afterGoogle] = useState(() => (google ? nextAfterGoogle() : null));
  useEffect(() => {
    if (afterGoogle && status === "signed-in") forgetNextAfterGoogle();
  }, [afterGoogle, status]);
  if (status === "loading") return <FullScreenLoader text="Authenticating..." />;
  if (afterGoogle && status === "signed-in") return <NavigateHref href={afterGoogle} replace />;
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
  homeRoute,
  signedInPage("/simple", HomePage),
  authRoute,
  page("/auth/forgot-password", ForgotPasswordPage),
  resetPasswordRoute,
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
  licenseRoute,
  signedInPage("/contact-lists", ContactsPage),
  signedInPage("/segments", SegmentsPage),
  signedInPage("/templates", TemplatesPage),
  automationRoute,
  signedInPage("/advanced-sms", AdvancedSmsPage),
  page("/admin", AdminLoginPage),
  signedInPage("/admin/dashboard", AdminDashboardPage),
  signedInPage("/settings/security", SecurityPage),
  signedInPage("/sms-campaigns", CampaignsPage),
  signedInPage("/campaigns", CampaignsPage),
  signedInPage("/send-message", CampaignsPage),
  wizardRoute,
  signedInPage("/sent-messages", SentMessagesPage),
  signedInPage("/analytics", SentMessagesPage),
  signedInPage("/phone-settings", PhoneSettingsPage),
  signedInPage("/settings/phone", PhoneSettingsPage),
  signedInPage("/settings/webhook", WebhookSettingsPage),
  signedInPage("/chat", ChatPage),
  signedInPage("/chat/archived", ArchivedChatPage),
  signedInPage("/dashboard", DashboardPage),
  signedInPage("/advanced", AdvancedHomePage),
  signedInPage("/home", AdvancedHomePage),
  signedInPage("/keywords", KeywordsPage),
  signedInPage("/integrations", IntegrationsPage),
  signedInPage("/email-campaigns", EmailCampaignsPage),
  signedInPage("/admin/backup-manager", BackupManagerPage),
  signedInPage("/real-time-demo", RealTimeDemoPage),
  signedInPage("/pwa-demo", PwaDemoPage),
  signedInPage("/test-error-demo", TestErrorDemoPage),
]);

export const router = createRouter({ routeTree, defaultPreload: "intent", scrollRestoration: true });

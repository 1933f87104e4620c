import { useSignals } from "@preact/signals-react/runtime";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState, type ReactNode } from "react";
import { auth, displayName, logout } from "../lib/auth";
import { Icon, type IconName } from "./icons";
import { toast } from "../lib/toast";
import { useCurrentLicense } from "../api/licenses";
import { Logo } from "./public-layout";
import { Button, cx } from "./ui";
import { ChatPopup, launcherClearance, UnreadCount, useUnreadTitle } from "./chat-popup";

/** `unread`: the entry shows the account's unread replies. */
type Entry = { to: string; label: string; icon: IconName; unread?: boolean };

// Only screens that exist are listed; the spec's Email Marketing has an honest "not in this version" page at its
// address (ui/router.tsx) and joins the menu when it is built.
const MAIN: Entry[] = [
  { to: "/", label: "Dashboard", icon: "home" },
  { to: "/sms-campaigns", label: "Send Messages", icon: "megaphone" },
  { to: "/sent-messages", label: "Sent Messages", icon: "clock" },
  { to: "/contact-lists", label: "Customer Lists", icon: "users" },
  { to: "/chat", label: "Chat & Replies", icon: "chat", unread: true },
  { to: "/dashboard", label: "Results & Stats", icon: "chart" },
  { to: "/segments", label: "Segments", icon: "target" },
  { to: "/keywords", label: "Keywords", icon: "key" },
  { to: "/templates", label: "Templates", icon: "template" },
  { to: "/automation", label: "Automation", icon: "bolt" },
  { to: "/advanced-sms", label: "Advanced SMS", icon: "pen" },
  { to: "/integrations", label: "Integrations", icon: "code" },
];
const ADMIN: Entry[] = [
  { to: "/admin/dashboard", label: "Admin Panel", icon: "shield" },
  { to: "/admin/backup-manager", label: "Backup Manager", icon: "box" },
  { to: "/real-time-demo", label: "Real-Time Demo", icon: "bolt" },
];
const ACCOUNT: Entry[] = [
  { to: "/license", label: "License", icon: "key" },
  { to: "/phone-settings", label: "Phone Settings", icon: "mobile" },
  { to: "/help", label: "Help & Support", icon: "flag" },
  { to: "/settings", label: "Account Settings", icon: "pen" },
  { to: "/settings/security", label: "Security", icon: "lock" },
];

function NavGroup({ title, entries, onNavigate }: { title?: string; entries: Entry[]; onNavigate: () => void }) {
  return (
    <div className="space-y-0.5">
      {title && <p className="px-3 pt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</p>}
      {entries.map((e) => (
        <Link
          key={e.to}
          to={e.to}
          onClick={onNavigate}
          activeOptions={{ exact: true }}
          className="flex items-center gap-3 rounded-lg px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-100"
          activeProps={{ className: "bg-brand-50 font-medium text-brand-700" }}
        >
          <Icon name={e.icon} className="h-5 w-5 shrink-0" />
          <span className="flex-1">{e.label}</span>
          {e.unread && <UnreadCount />}
        </Link>
      ))}
    </div>
  );
}

/** The menu; in the mobile drawer `onClose` adds the close button to its header row, clear of the plan badge. */
function Sidebar({ onNavigate, onClose }: { onNavigate: () => void; onClose?: () => void }) {
  useSignals();
  const navigate = useNavigate();
  const user = auth.value.user;
  // The spec's fixed 'Pro Plan' label shows the plan actually in force.
  const license = useCurrentLicense();
  const plan = license.data?.data?.plan;
  const signOut = async () => {
    try {
      await logout();
      await navigate({ to: "/" });
    } catch {
      toast({ title: "Error", description: "Failed to logout. Please try again.", variant: "destructive" });
    }
  };
  return (
    <div className="flex h-full flex-col">
      <div className="flex items-center gap-2 px-4 py-4">
        <div className="min-w-0 flex-1">
          <Logo />
        </div>
        <Link
          to="/license"
          onClick={onNavigate}
          className="shrink-0 whitespace-nowrap rounded-full bg-brand-100 px-2 py-0.5 text-xs font-medium text-brand-700"
        >
          {license.data === null ? "…" : !plan ? "No plan" : plan.id === "admin" ? "Administrator" : `${plan.name} Plan`}
        </Link>
        {onClose && (
          <button
            type="button"
            aria-label="Close menu"
            className="shrink-0 rounded p-1 text-slate-500 hover:bg-slate-100"
            onClick={onClose}
          >
            ✕
          </button>
        )}
      </div>
      <nav aria-label="Main" className="flex-1 overflow-y-auto px-3 pb-4">
        <NavGroup entries={MAIN} onNavigate={onNavigate} />
        {/* Right under the everyday screens: the longer admin and account groups must not push it out of view. */}
        <div className="my-4 rounded-xl bg-brand-50 p-4">
          <p className="text-sm font-semibold text-brand-700">Quick Start</p>
          <p className="mt-1 text-xs text-slate-600">Send your first text campaign in under a minute.</p>
          <Link
            to="/sms-campaigns"
            onClick={onNavigate}
            className="mt-3 inline-block text-sm font-medium text-brand-700 hover:underline"
          >
            Send a message →
          </Link>
        </div>
        {user?.role === "admin" && <NavGroup title="Admin" entries={ADMIN} onNavigate={onNavigate} />}
        <NavGroup title="Account" entries={ACCOUNT} onNavigate={onNavigate} />
      </nav>
      <div className="border-t border-slate-200 p-4">
        {user && <p className="mb-2 truncate text-sm text-slate-600">{displayName(user)}</p>}
        <Button variant="secondary" className="w-full" onClick={signOut}>
          Sign Out
        </Button>
      </div>
    </div>
  );
}

export function AppLayout({ children }: { children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  useUnreadTitle();
  return (
    <div className="min-h-screen bg-slate-50">
      <aside className="fixed inset-y-0 left-0 hidden w-64 border-r border-slate-200 bg-white lg:block">
        <Sidebar onNavigate={() => {}} />
      </aside>
      <div className="sticky top-0 z-30 flex items-center justify-between border-b border-slate-200 bg-white px-4 py-3 lg:hidden">
        <Logo />
        <button
          type="button"
          aria-label="Open menu"
          className="rounded-lg p-2 hover:bg-slate-100"
          onClick={() => setMenuOpen(true)}
        >
          <span aria-hidden className="text-xl leading-none">
            ≡
          </span>
        </button>
      </div>
      {menuOpen && (
        <div className="fixed inset-0 z-50 lg:hidden">
          <div className="absolute inset-0 bg-slate-900/40" onClick={() => setMenuOpen(false)} />
          <aside className={cx("animate-slide-in-right absolute inset-y-0 right-0 w-72 bg-white shadow-xl")}>
            <Sidebar onNavigate={() => setMenuOpen(false)} onClose={() => setMenuOpen(false)} />
          </aside>
        </div>
      )}
      <main className="lg:pl-64">
        <div className={cx("mx-auto max-w-6xl px-4 pt-4 md:px-8 md:pt-8", launcherClearance())}>{children}</div>
      </main>
      <ChatPopup />
    </div>
  );
}

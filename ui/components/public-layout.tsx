import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { useEffect, useState, type ReactNode } from "react";
import { auth } from "../lib/auth";
import { openAuthModal } from "../lib/auth-modal";
import { AuthModal } from "../routes/auth/auth-modal";
import { Button } from "./ui";

export function Logo() {
  return (
    <Link to="/" className="flex items-center gap-2 text-lg font-bold text-slate-900">
      <svg viewBox="0 0 64 64" className="h-8 w-8" aria-hidden>
        <rect width="64" height="64" rx="14" fill="#4f46e5" />
        <path d="M16 20h32a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H30l-9 7v-7h-5a4 4 0 0 1-4-4V24a4 4 0 0 1 4-4z" fill="#fff" />
      </svg>
      smsdesk
    </Link>
  );
}

const NAV = [
  { to: "/features", label: "Features" },
  { to: "/pricing", label: "Pricing" },
  { to: "/about", label: "About" },
  { to: "/help", label: "Help" },
  { to: "/contact", label: "Contact" },
] as const;

/** Below the md breakpoint the pages' links fold into a menu under a button (they were simply hidden at 390 px). */
function MobileMenu() {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && setOpen(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
  return (
    <div className="md:hidden">
      <button
        type="button"
        aria-expanded={open}
        aria-controls="public-menu"
        onClick={() => setOpen(!open)}
        className="inline-flex h-10 w-10 items-center justify-center rounded-lg text-slate-700 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
      >
        <span className="sr-only">{open ? "Close menu" : "Menu"}</span>
        <svg viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" aria-hidden>
          {open ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
        </svg>
      </button>
      {open && (
        <nav id="public-menu" aria-label="Pages" className="absolute inset-x-0 top-full border-b border-slate-200 bg-white px-4 py-2 shadow-sm">
          {NAV.map((n) => (
            <Link
              key={n.to}
              to={n.to}
              onClick={() => setOpen(false)}
              className="block rounded-lg px-3 py-2.5 text-base text-slate-700 hover:bg-slate-100"
              activeProps={{ className: "bg-brand-50 text-brand-700 font-medium" }}
            >
              {n.label}
            </Link>
          ))}
        </nav>
      )}
    </div>
  );
}

export function PublicHeader() {
  useSignals();
  const signedIn = auth.value.status === "signed-in";
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/90 backdrop-blur">
      <div className="relative mx-auto flex max-w-6xl items-center justify-between gap-2 px-4 py-3 sm:gap-4">
        <div className="flex items-center gap-1">
          <MobileMenu />
          <Logo />
        </div>
        <nav aria-label="Pages" className="hidden items-center gap-6 text-sm text-slate-600 md:flex">
          {NAV.map((n) => (
            <Link key={n.to} to={n.to} className="hover:text-slate-900" activeProps={{ className: "text-brand-700 font-medium" }}>
              {n.label}
            </Link>
          ))}
        </nav>
        {signedIn ? (
          <Link to="/" className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
            Open Dashboard
          </Link>
        ) : (
          <div className="flex items-center gap-2">
            <Button variant="ghost" onClick={() => openAuthModal("signin")}>
              Sign In
            </Button>
            <Button onClick={() => openAuthModal("signup")}>Get Started</Button>
          </div>
        )}
      </div>
    </header>
  );
}

export function PublicFooter() {
  const links = [
    { to: "/about", label: "About" },
    { to: "/features", label: "Features" },
    { to: "/pricing", label: "Pricing" },
    { to: "/contact", label: "Contact" },
    { to: "/help", label: "Help" },
    { to: "/privacy", label: "Privacy" },
    { to: "/terms", label: "Terms" },
  ] as const;
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-col items-center justify-between gap-4 px-4 py-8 text-sm text-slate-600 md:flex-row">
        <p>© {new Date().getFullYear()} smsdesk. SMS marketing on your own server.</p>
        <nav className="flex flex-wrap justify-center gap-4">
          {links.map((l) => (
            <Link key={l.to} to={l.to} className="hover:text-slate-900">
              {l.label}
            </Link>
          ))}
        </nav>
      </div>
    </footer>
  );
}

export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-white">
      <PublicHeader />
      <main className="flex-1">{children}</main>
      <PublicFooter />
      <AuthModal />
    </div>
  );
}

/** Back-to-home link used at the top of the static pages. */
export function BackToHome() {
  return (
    <Link to="/" className="text-sm text-brand-700 hover:underline">
      ← Back to Home
    </Link>
  );
}

import { useEffect, useState } from "react";
import { fetchAuthProviders, GOOGLE_SIGN_IN_URL } from "../../api/auth";
import { rememberNextForGoogle } from "../../lib/next-path";

let providers: Promise<{ google: boolean }> | null = null;
/** Which sign-in providers the server has configured; asked once per page load. */
const loadProviders = () => (providers ??= fetchAuthProviders().catch(() => ({ google: false })));

/**
 * 'Continue with Google' (a full-page navigation to /api/auth/google), only when the server has it configured.
 * `next`: the page to return to after it, as /auth's route validated it.
 */
export function ContinueWithGoogle({ next }: { next?: string }) {
  const [enabled, setEnabled] = useState(false);
  useEffect(() => {
    let alive = true;
    void loadProviders().then((p) => alive && setEnabled(p.google));
    return () => {
      alive = false;
    };
  }, []);
  if (!enabled) return null;
  return (
    <div className="mb-5 space-y-4">
      <a
        href={GOOGLE_SIGN_IN_URL}
        onClick={() => rememberNextForGoogle(next)}
        className="flex w-full items-center justify-center gap-2 rounded-lg border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
      >
        <svg aria-hidden viewBox="0 0 48 48" className="h-4 w-4">
          <path fill="#FFC107" d="M43.6 20.5H42V20H24v8h11.3C33.7 32.7 29.2 36 24 36c-6.6 0-12-5.4-12-12s5.4-12 12-12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 12.9 4 4 12.9 4 24s8.9 20 20 20 20-8.9 20-20c0-1.3-.1-2.4-.4-3.5z" />
          <path fill="#FF3D00" d="m6.3 14.7 6.6 4.8C14.7 15.1 19 12 24 12c3.1 0 5.8 1.2 7.9 3.1l5.7-5.7C34 6.1 29.3 4 24 4 16.3 4 9.7 8.3 6.3 14.7z" />
          <path fill="#4CAF50" d="M24 44c5.2 0 9.9-2 13.4-5.2l-6.2-5.2C29.2 35.1 26.7 36 24 36c-5.2 0-9.6-3.3-11.3-8l-6.5 5C9.5 39.6 16.2 44 24 44z" />
          <path fill="#1976D2" d="M43.6 20.5H42V20H24v8h11.3c-.8 2.2-2.2 4.2-4.1 5.6l6.2 5.2C37 39.2 44 34 44 24c0-1.3-.1-2.4-.4-3.5z" />
        </svg>
        Continue with Google
      </a>
      <div className="flex items-center gap-3 text-xs text-slate-500">
        <span className="h-px flex-1 bg-slate-200" />
        or
        <span className="h-px flex-1 bg-slate-200" />
      </div>
    </div>
  );
}

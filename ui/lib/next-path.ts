/**
 * Where a sign-in returns to: the page the user was sent from (`/auth?next=/contact-lists?tab=import`). Only a path of
 * this origin is followed, so a link cannot bounce a fresh sign-in to another site (`//evil.example`,
 * `https:evil.example`, `/\evil.example`), nor back to the sign-in itself.
 */
export function safeNextPath(raw: string | null | undefined, origin = window.location.origin): string | null {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return null;
  // Browsers drop tabs and line breaks from URLs (`/\t/evil.example` is `//evil.example`), and a path has none.
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.pathname === "/auth" || url.pathname.startsWith("/auth/")) return null;
  return url.pathname + url.search + url.hash;
}

/** The sign-in page for someone sent away from `path` (the home page needs no return). */
export function signInHref(path: string): string {
  return path === "/" ? "/auth" : `/auth?next=${encodeURIComponent(path)}`;
}

// Google's sign-in leaves the app and comes back to "/": the page to return to waits in this tab's storage.
const GOOGLE_NEXT_KEY = "smsdesk.next-after-google";
export function rememberNextForGoogle(next: string | undefined): void {
  if (next) sessionStorage.setItem(GOOGLE_NEXT_KEY, next);
  else sessionStorage.removeItem(GOOGLE_NEXT_KEY);
}
export const nextAfterGoogle = () => safeNextPath(sessionStorage.getItem(GOOGLE_NEXT_KEY));
export const forgetNextAfterGoogle = () => sessionStorage.removeItem(GOOGLE_NEXT_KEY);

import { Link } from "@tanstack/react-router";

/** A path nothing answers: inside the app's layout for a signed-in user, so the sidebar is still there. */
export function NotFound({ signedIn = false }: { signedIn?: boolean }) {
  return (
    <div className="flex min-h-[60vh] flex-col items-center justify-center gap-3 p-8 text-center">
      <p className="text-6xl font-bold text-brand-600">404</p>
      <h1 className="text-2xl font-semibold">Page not found</h1>
      <p className="text-slate-600">The page you are looking for does not exist or has moved.</p>
      <Link to="/" className="mt-2 rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
        {signedIn ? "Go to Dashboard" : "Go to Home"}
      </Link>
    </div>
  );
}

/**
 * A screen of the product that this version does not have yet (its address is known from the spec, old bookmarks
 * or links): says so plainly inside the app, and points to what exists instead.
 */
export function NotAvailable({ title, instead }: { title: string; instead?: { to: string; label: string } }) {
  return (
    <div className="flex min-h-[60vh] flex-col items-center justify-center gap-3 p-8 text-center">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="max-w-md text-slate-600">This screen is not part of this version of smsdesk yet.</p>
      <div className="mt-2 flex flex-wrap justify-center gap-2">
        {instead && (
          <Link to={instead.to} className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700">
            {instead.label}
          </Link>
        )}
        <Link
          to="/"
          className="rounded-lg border border-slate-300 px-4 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100"
        >
          Go to Dashboard
        </Link>
      </div>
    </div>
  );
}

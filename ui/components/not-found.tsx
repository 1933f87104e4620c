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

import { useSignals } from "@preact/signals-react/runtime";
import { useRouterState } from "@tanstack/react-router";
import { auth } from "../lib/auth";
import { installApp, installCardSnoozed, installed, installPrompt, installState, snoozeInstallCard } from "../lib/pwa";
import { Button } from "./ui";

/**
 * The small install card (bottom right, above the chat button) for a signed-in user, shown only once the browser
 * has offered installation: Install opens the browser's own dialog, Later hides the card on this device for a week.
 */
export function InstallCard() {
  useSignals();
  const path = useRouterState({ select: (s) => s.location.pathname });
  const { status, user } = auth.value;
  const offered = installPrompt.value !== null && !installed.value;
  // /pwa-demo has its own Install Now button and explains the rest.
  if (!offered || installCardSnoozed.value || path === "/pwa-demo") return null;
  if (status !== "signed-in" || !user?.emailVerified) return null;
  const { state, message } = installState.value;
  return (
    <div
      role="dialog"
      aria-label="Install smsdesk"
      className="fixed bottom-24 right-4 z-[70] w-72 rounded-xl border border-slate-200 bg-white p-4 shadow-xl"
    >
      <div className="flex items-start gap-3">
        <img src="/icons/icon-192.png" alt="" className="h-10 w-10 rounded-lg" />
        <div>
          <p className="font-semibold">Install smsdesk</p>
          <p className="text-sm text-slate-600">Open it from your home screen or dock, in its own window.</p>
        </div>
      </div>
      {state === "failed" && <p className="mt-2 text-sm text-red-700">{message}</p>}
      <div className="mt-3 flex justify-end gap-2">
        <Button variant="ghost" className="!px-3 !py-1" onClick={snoozeInstallCard}>
          Later
        </Button>
        <Button className="!px-3 !py-1" onClick={() => void installApp()} disabled={state === "installing"}>
          {state === "installing" ? "Installing..." : "Install"}
        </Button>
      </div>
    </div>
  );
}

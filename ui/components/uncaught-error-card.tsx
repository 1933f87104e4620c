import { useEffect, useState } from "react";
import { LAST_ERROR_KEY, sendErrorReport } from "../lib/error-reports";
import { Button } from "./ui";

type Captured = { message: string; stack?: string };

/** Uncaught errors and unhandled rejections: a red card top right for 10 s with Notify to Fix. */
export function UncaughtErrorCard() {
  const [error, setError] = useState<Captured | null>(null);
  const [state, setState] = useState<"idle" | "sending" | "sent" | "failed">("idle");

  useEffect(() => {
    const show = (captured: Captured) => {
      sessionStorage.setItem(LAST_ERROR_KEY, JSON.stringify(captured));
      setState("idle");
      setError(captured);
    };
    const onError = (e: ErrorEvent) => show({ message: e.message || "An unexpected error occurred", stack: e.error?.stack });
    const onRejection = (e: PromiseRejectionEvent) => {
      const reason = e.reason;
      show({ message: reason?.message ?? String(reason ?? "An unexpected error occurred"), stack: reason?.stack });
    };
    window.addEventListener("error", onError);
    window.addEventListener("unhandledrejection", onRejection);
    return () => {
      window.removeEventListener("error", onError);
      window.removeEventListener("unhandledrejection", onRejection);
    };
  }, []);

  useEffect(() => {
    if (!error) return;
    const timer = setTimeout(() => setError(null), 10_000);
    return () => clearTimeout(timer);
  }, [error]);

  if (!error) return null;
  const notify = async () => {
    setState("sending");
    try {
      await sendErrorReport(error);
      setState("sent");
    } catch {
      setState("failed");
    }
  };
  return (
    <div role="alert" className="fixed right-4 top-4 z-[90] w-80 rounded-xl bg-red-600 p-4 text-white shadow-xl">
      <p className="font-semibold">Error</p>
      <p className="mt-1 break-words text-sm">{error.message}</p>
      <div className="mt-3 flex gap-2">
        <Button variant="secondary" className="!px-3 !py-1" onClick={notify} disabled={state === "sending" || state === "sent"}>
          {state === "sending" ? "Sending..." : state === "sent" ? "✓ Report Sent" : state === "failed" ? "Retry" : "Notify to Fix"}
        </Button>
        <Button variant="ghost" className="!px-3 !py-1 text-white hover:bg-red-700" onClick={() => setError(null)}>
          Dismiss
        </Button>
      </div>
    </div>
  );
}

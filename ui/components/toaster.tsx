import { useSignals } from "@preact/signals-react/runtime";
import { useEffect } from "react";
import { dismissToast, toasts } from "../lib/toast";
import { cx } from "./ui";

export function Toaster() {
  useSignals();
  useEffect(() => {
    // F8 focuses the notification region, as the spec's toasts do.
    const onKey = (e: KeyboardEvent) => e.key === "F8" && document.getElementById("toast-region")?.focus();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  return (
    <ol
      id="toast-region"
      tabIndex={-1}
      aria-label="Notifications (F8)"
      className={cx(
        "fixed right-4 z-[100] flex w-full max-w-[420px] flex-col gap-2 px-4 outline-none sm:px-0",
        toasts.value[0]?.placement === "top" ? "top-4" : "bottom-4",
      )}
    >
      {toasts.value.map((t) => (
        <li
          key={t.id}
          role="status"
          aria-live="polite"
          data-testid="toast"
          className={cx(
            "rounded-xl border p-4 shadow-lg",
            t.variant === "destructive" ? "border-red-300 bg-red-600 text-white" : "border-slate-200 bg-white text-slate-900",
          )}
        >
          <div className="flex items-start gap-3">
            <div className="flex-1">
              <p className="text-sm font-semibold">{t.title}</p>
              {t.description && <p className="mt-1 text-sm opacity-90">{t.description}</p>}
            </div>
            {t.action && (
              <button type="button" className="rounded border border-current px-2 py-1 text-xs" onClick={t.action.onClick}>
                {t.action.label}
              </button>
            )}
            <button type="button" aria-label="Dismiss" className="text-sm opacity-70" onClick={() => dismissToast(t.id)}>
              ✕
            </button>
          </div>
        </li>
      ))}
    </ol>
  );
}

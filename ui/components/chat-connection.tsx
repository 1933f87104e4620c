import { useSignals } from "@preact/signals-react/runtime";
import { liveConnected } from "./chat-live";
import { cx } from "./ui";

/** The live connection: a green dot when pushes arrive, grey while the app reconnects (and reads by polling). */
export function ConnectionDot({ withLabel = false }: { withLabel?: boolean }) {
  useSignals();
  const on = liveConnected.value;
  const label = on ? "Connected" : "Disconnected";
  return (
    <span className="inline-flex items-center gap-1.5 text-xs text-slate-600" title={on ? "Live updates on" : "Reconnecting…"}>
      <span
        aria-hidden
        className={cx("inline-block h-2.5 w-2.5 rounded-full", on ? "bg-green-500" : "bg-slate-400")}
        data-testid="connection-dot"
      />
      {withLabel ? label : <span className="sr-only">{label}</span>}
    </span>
  );
}

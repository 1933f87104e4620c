import { useSignals } from "@preact/signals-react/runtime";
import { applyUpdate, updateWaiting } from "../lib/pwa";
import { Button } from "./ui";

/** A new version of the appliance's UI was downloaded by the service worker: reload into it when the user chooses. */
export function UpdatePrompt() {
  useSignals();
  if (!updateWaiting.value) return null;
  return (
    <div
      role="status"
      className="fixed bottom-4 left-4 z-[70] flex items-center gap-3 rounded-xl bg-slate-900 px-4 py-3 text-sm text-white shadow-xl"
    >
      <span>Update available: a new version of smsdesk is ready.</span>
      <Button className="!px-3 !py-1" onClick={applyUpdate}>
        Reload
      </Button>
    </div>
  );
}

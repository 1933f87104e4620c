import { useEffect, useState } from "react";

export function OfflineBanner() {
  const [state, setState] = useState<"online" | "offline" | "restored">(navigator.onLine ? "online" : "offline");
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const offline = () => setState("offline");
    const online = () => {
      setState("restored");
      timer = setTimeout(() => setState("online"), 3000);
    };
    window.addEventListener("offline", offline);
    window.addEventListener("online", online);
    return () => {
      window.removeEventListener("offline", offline);
      window.removeEventListener("online", online);
      clearTimeout(timer);
    };
  }, []);
  if (state === "online") return null;
  if (state === "restored") {
    return (
      <div role="status" className="fixed inset-x-0 top-0 z-[80] bg-green-600 px-4 py-2 text-center text-sm text-white">
        Connection restored!
      </div>
    );
  }
  return (
    <div role="alert" className="fixed inset-x-0 top-0 z-[80] bg-red-600 px-4 py-2 text-center text-sm text-white">
      <p className="font-medium">No internet connection. Some features may not work.</p>
      <p className="text-xs opacity-90">SMS campaigns and real-time chat will not work until you are back online.</p>
    </div>
  );
}

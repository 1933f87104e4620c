import { signal } from "@preact/signals-react";

/** Chromium's `beforeinstallprompt` event: kept so the app can offer installation at a moment of its choosing. */
export type InstallPromptEvent = Event & {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
};

export type ServiceWorkerStatus = "unsupported" | "registering" | "active" | "failed";
export type InstallState = { state: "idle" | "installing" | "failed"; message?: string };

export const serviceWorkerStatus = signal<ServiceWorkerStatus>("registering");
/** A new version's worker, installed and waiting for the user's "Reload". */
export const updateWaiting = signal<ServiceWorker | null>(null);
/** The browser's offer to install, once it has made one (it makes it once per page load at most). */
export const installPrompt = signal<InstallPromptEvent | null>(null);
export const installed = signal(false);
export const installState = signal<InstallState>({ state: "idle" });

export const pwaSupported = () => "serviceWorker" in navigator && window.isSecureContext;

/** Opened as an installed app (its own window, or from the iOS home screen) rather than in a browser tab. */
export const standalone = () =>
  window.matchMedia("(display-mode: standalone)").matches || (navigator as { standalone?: boolean }).standalone === true;

const LATER_KEY = "smsdesk-install-later";
const LATER_MS = 7 * 24 * 60 * 60 * 1000;
export const installCardSnoozed = signal(Number(localStorage.getItem(LATER_KEY) ?? 0) > Date.now() - LATER_MS);

/** "Later" on the install card: not asked again on this device for a week. */
export function snoozeInstallCard() {
  localStorage.setItem(LATER_KEY, String(Date.now()));
  installCardSnoozed.value = true;
}

/**
 * Listens for the install offer and registers /sw.js. Called once at start-up, before any screen renders: Chromium
 * fires `beforeinstallprompt` early, and a lazily loaded screen would miss it.
 */
export function startPwa() {
  installed.value = standalone();
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    installPrompt.value = event as InstallPromptEvent;
  });
  window.addEventListener("appinstalled", () => {
    installed.value = true;
    installPrompt.value = null;
    installState.value = { state: "idle" };
  });
  if (!pwaSupported()) {
    serviceWorkerStatus.value = "unsupported";
    return;
  }
  // After the page has loaded: precaching the app must not compete with the first render for the connection.
  if (document.readyState === "complete") void registerServiceWorker();
  else window.addEventListener("load", () => void registerServiceWorker(), { once: true });
}

async function registerServiceWorker() {
  let registration: ServiceWorkerRegistration;
  try {
    registration = await navigator.serviceWorker.register("/sw.js");
  } catch (err) {
    console.error("service worker registration failed", err);
    serviceWorkerStatus.value = "failed";
    return;
  }
  // A worker that finishes installing while another controls the page is a new version: offer the reload. On the
  // first visit there is no controller, and the new worker simply takes over on the next load.
  const watch = (worker: ServiceWorker | null) => {
    if (!worker) return;
    const check = () => {
      if (worker.state === "installed" && navigator.serviceWorker.controller) updateWaiting.value = worker;
    };
    check();
    worker.addEventListener("statechange", check);
  };
  watch(registration.waiting);
  registration.addEventListener("updatefound", () => watch(registration.installing));
  await navigator.serviceWorker.ready;
  serviceWorkerStatus.value = "active";
  // A tab left open for days still learns of an upgrade of the appliance.
  setInterval(() => void registration.update().catch(() => {}), 60 * 60 * 1000);
}

/** "Reload" on the update prompt: the waiting worker takes over, then the page reloads into the new version. */
export function applyUpdate() {
  const worker = updateWaiting.value;
  if (!worker) return;
  navigator.serviceWorker.addEventListener("controllerchange", () => location.reload(), { once: true });
  worker.postMessage({ type: "SKIP_WAITING" });
}

/** Install Now / Install: shows the browser's own dialog; only the browser can install, and only when it offered to. */
export async function installApp() {
  const prompt = installPrompt.value;
  if (!prompt) {
    installState.value = {
      state: "failed",
      message: installed.value
        ? "smsdesk is already installed on this device."
        : "This browser has not offered to install smsdesk. Use its menu instead (see the steps below).",
    };
    return;
  }
  installState.value = { state: "installing" };
  try {
    await prompt.prompt();
    const { outcome } = await prompt.userChoice;
    // The browser's offer can be used once; it makes a new one on a later visit.
    installPrompt.value = null;
    installState.value = outcome === "accepted" ? { state: "idle" } : { state: "failed", message: "Installation was cancelled." };
    if (outcome === "accepted") installed.value = true;
  } catch (err) {
    installState.value = { state: "failed", message: err instanceof Error ? err.message : "Installation failed." };
  }
}

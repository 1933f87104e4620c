import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState, type ReactNode } from "react";
import { Badge, type BadgeTone } from "../../../components/badge";
import { Alert, Button, Card } from "../../../components/ui";
import {
  installApp,
  installed,
  installPrompt,
  installState,
  pwaSupported,
  serviceWorkerStatus,
  standalone,
  type ServiceWorkerStatus,
} from "../../../lib/pwa";

const WORKER: Record<ServiceWorkerStatus, { text: string; tone: BadgeTone }> = {
  active: { text: "Active", tone: "green" },
  registering: { text: "Registering...", tone: "amber" },
  failed: { text: "Failed to register", tone: "red" },
  unsupported: { text: "Not available", tone: "slate" },
};

function StatusRow({ label, value, tone }: { label: string; value: string; tone: BadgeTone }) {
  return (
    <div className="flex items-center justify-between py-2">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd>
        <Badge tone={tone}>{value}</Badge>
      </dd>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card className="p-6">
      <h2 className="mb-3 text-lg font-semibold">{title}</h2>
      {children}
    </Card>
  );
}

/** /pwa-demo: whether this browser can run smsdesk as an installed app, and how to install it. */
export function PwaDemoPage() {
  useSignals();
  const [displayStandalone, setDisplayStandalone] = useState(standalone);
  useEffect(() => {
    const query = window.matchMedia("(display-mode: standalone)");
    const change = () => setDisplayStandalone(standalone());
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, []);
  const supported = pwaSupported();
  const worker = WORKER[serviceWorkerStatus.value];
  const { state, message } = installState.value;
  const isInstalled = installed.value || displayStandalone;

  return (
    <div className="mx-auto max-w-3xl space-y-6 p-6">
      <div>
        <h1 className="text-2xl font-bold">Install the App</h1>
        <p className="text-slate-600">smsdesk runs as an app on your phone or computer, straight from this server.</p>
      </div>

      <Section title="Status">
        <dl className="divide-y divide-slate-100" aria-label="App status">
          <StatusRow label="PWA support" value={supported ? "Supported" : "Not supported"} tone={supported ? "green" : "red"} />
          <StatusRow label="Service worker" value={worker.text} tone={worker.tone} />
          <StatusRow label="App status" value={isInstalled ? "Installed" : "Web Version"} tone={isInstalled ? "green" : "slate"} />
          <StatusRow label="Display mode" value={displayStandalone ? "Standalone" : "Browser"} tone="blue" />
        </dl>
        {!supported && (
          <p className="mt-2 text-sm text-slate-600">
            Installing needs a secure connection: open smsdesk at its https:// address (or on localhost).
          </p>
        )}
      </Section>

      <Section title="Install smsdesk">
        {isInstalled ? (
          <Alert tone="success">smsdesk is installed on this device.</Alert>
        ) : (
          <div className="space-y-3">
            <p className="text-sm text-slate-600">
              {installPrompt.value
                ? "Your browser can install smsdesk now."
                : "Your browser has not offered to install smsdesk on this visit; the steps below work in every browser that can."}
            </p>
            <Button onClick={() => void installApp()} disabled={state === "installing"}>
              {state === "installing" ? "Installing..." : "Install Now"}
            </Button>
            {state === "failed" && <Alert>{message}</Alert>}
          </div>
        )}
      </Section>

      <div className="grid gap-6 md:grid-cols-2">
        <Section title="iPhone and iPad (Safari)">
          <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-700">
            <li>Tap the Share button.</li>
            <li>Choose Add to Home Screen.</li>
            <li>Keep or change the name.</li>
            <li>Tap Add.</li>
          </ol>
        </Section>
        <Section title="Other browsers">
          <ul className="list-disc space-y-1 pl-5 text-sm text-slate-700">
            <li>Chrome and Edge on a computer: the install icon at the right of the address bar.</li>
            <li>Chrome on Android: the menu, then Install app.</li>
            <li>Firefox on Android: the menu, then Install. Firefox on a computer cannot install web apps.</li>
          </ul>
        </Section>
      </div>

      <Section title="What you get">
        <ul className="grid gap-3 text-sm text-slate-700 sm:grid-cols-2">
          <li>
            <p className="font-medium">Works offline</p>
            <p className="text-slate-600">The app opens without a connection; sending and chat wait for it.</p>
          </li>
          <li>
            <p className="font-medium">Notifications</p>
            <p className="text-slate-600">New replies raise a desktop notification while smsdesk is open.</p>
          </li>
          <li>
            <p className="font-medium">Home-screen icon</p>
            <p className="text-slate-600">Start smsdesk like any other app.</p>
          </li>
          <li>
            <p className="font-medium">Full screen</p>
            <p className="text-slate-600">Its own window, without the browser's address bar.</p>
          </li>
        </ul>
      </Section>

      <Section title="App stores">
        <div className="flex flex-wrap gap-3">
          {["App Store", "Google Play"].map((store) => (
            <div key={store} className="flex items-center gap-2 rounded-lg border border-slate-200 px-4 py-2">
              <span className="font-medium">{store}</span>
              <Badge tone="amber">Coming Soon</Badge>
            </div>
          ))}
        </div>
        <p className="mt-2 text-sm text-slate-600">Until then, install from the browser: it is the same app.</p>
      </Section>
    </div>
  );
}

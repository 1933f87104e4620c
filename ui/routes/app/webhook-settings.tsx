import { Link } from "@tanstack/react-router";
import { useId, useRef, useState, type ReactNode } from "react";
import { TabPanel, Tabs } from "../../components/tabs";
import { Alert, Button, Card, Spinner } from "../../components/ui";
import { toast } from "../../lib/toast";
import { useProviders, useWebhookUrls } from "../../api/providers";
import { PROVIDER_NAMES, URL_SECRET_PROVIDERS, type ProviderKind, type WebhookUrl } from "./phone-settings/model";

type Guide = { kind: ProviderKind; login: ReactNode; open: ReactNode; configure: ReactNode; paste: string; save: ReactNode };

/** Five steps per provider: log in, open the profile or numbers, inbound webhook (POST, message received), paste, save. */
const GUIDES: Guide[] = [
  {
    kind: "twilio",
    login: "Log in to the Twilio Console at console.twilio.com.",
    open: "Open Phone Numbers › Manage › Active numbers and click the number you send from (or open your Messaging Service).",
    configure: "Under Messaging Configuration, set “A message comes in” (the message received event) to Webhook with HTTP POST.",
    paste:
      "Paste your URL into the “A message comes in” field. If there is a Status callback URL field, paste the same URL there for delivery reports.",
    save: "Click Save configuration. Text the number from your phone: the reply shows in the Dashboard's recent activity.",
  },
  {
    kind: "telnyx",
    login: "Log in to the Telnyx Mission Control Portal at portal.telnyx.com.",
    open: "Open Messaging › Messaging Profiles and edit the profile your numbers are assigned to.",
    configure:
      "Under Inbound, choose “Send a webhook to the URL” with API v2 and HTTP POST, so each message received (message.received) is posted.",
    paste: "Paste your URL as the Webhook URL. Telnyx sends delivery reports (message.sent, message.finalized) to the same URL.",
    save: "Click Save. Each webhook's signature is checked with the Public Key (Keys & Credentials) you entered for the account.",
  },
  {
    kind: "brevo",
    login: "Log in to Brevo at app.brevo.com.",
    open: "Open Transactional › Settings › Webhook and choose to add a webhook for SMS.",
    configure:
      "Use HTTP POST and tick the Replied event (Brevo's message received event), plus Sent, Delivered, Soft bounce and Hard bounce.",
    paste: "Paste your URL as the webhook URL; it receives replies and delivery reports alike.",
    save: "Save the webhook.",
  },
  {
    kind: "textmagic",
    login: "Log in to TextMagic at my.textmagic.com.",
    open: "Open Services › API › Settings, where the callback URLs of your account and numbers are kept.",
    configure: "Set the callback for inbound messages (message received) with HTTP POST.",
    paste: "Paste your URL as the Inbound messages callback URL, and the same URL as the Message delivery notifications URL.",
    save: "Save the settings.",
  },
  {
    kind: "clicksend",
    login: "Log in to the ClickSend dashboard at dashboard.clicksend.com.",
    open: "Open Messaging › Settings › Inbound SMS Settings (your dedicated numbers) and add a rule.",
    configure: "Choose the action URL with HTTP POST, so every message received on the number is posted.",
    paste: "Paste your URL as the rule's URL. Under Delivery Reports, add a rule with the same URL for delivery reports.",
    save: "Save the rule and make sure it is enabled.",
  },
];

async function copy(url: string, shown: HTMLElement | null) {
  try {
    await navigator.clipboard.writeText(url);
    toast({ title: "Copied", description: "The webhook URL is on your clipboard." });
  } catch {
    // Without clipboard access (e.g. plain http), leave the URL selected so it can be copied by hand.
    if (shown) window.getSelection()?.selectAllChildren(shown);
    toast({ title: "Failed to copy", description: "Please copy the URL manually", variant: "destructive" });
  }
}

/** The whole URL stays visible (wrapped) at any width: a cut-off URL is easy to paste wrong. */
function UrlBox({ entry }: { entry: WebhookUrl & { url: string } }) {
  const id = useId();
  const shown = useRef<HTMLElement>(null);
  return (
    <div className="space-y-1">
      <p id={id} className="text-sm font-medium text-slate-700">
        {entry.label} webhook URL
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <code
          ref={shown}
          aria-labelledby={id}
          className="min-w-0 flex-1 select-all break-all rounded-lg border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-xs text-slate-800 sm:text-sm"
        >
          {entry.url}
        </code>
        <Button variant="secondary" aria-label={`Copy ${entry.label} webhook URL`} onClick={() => copy(entry.url, shown.current)}>
          Copy
        </Button>
      </div>
    </div>
  );
}

function NeedsAccount({ kind }: { kind: ProviderKind }) {
  return (
    <p className="text-sm text-slate-600">
      Add your {PROVIDER_NAMES[kind]} account in{" "}
      <Link to="/phone-settings" className="font-medium text-brand-700 underline">
        Phone Settings
      </Link>{" "}
      first: its webhook URL carries a secret made for that account and appears here once the account exists.
    </p>
  );
}

function SecretNote({ kind }: { kind: ProviderKind }) {
  return (
    <Alert tone="info">
      {PROVIDER_NAMES[kind]} does not sign its webhooks, so this URL carries a secret key (the <code>key=</code> part). Keep it
      private: anyone who has it could post messages into your account.
    </Alert>
  );
}

function Instructions({ guide, urls }: { guide: Guide; urls: WebhookUrl[] }) {
  const ready = urls.filter((u): u is WebhookUrl & { url: string } => !!u.url);
  const needsAccount = ready.length === 0 && urls.some((u) => u.needsAccount);
  const secret = URL_SECRET_PROVIDERS.includes(guide.kind);
  const steps: ReactNode[] = [
    guide.login,
    guide.open,
    guide.configure,
    <div className="space-y-3">
      <p>{guide.paste}</p>
      {needsAccount ? <NeedsAccount kind={guide.kind} /> : ready.map((u) => <UrlBox key={u.url} entry={u} />)}
    </div>,
    guide.save,
  ];
  return (
    <div className="space-y-4">
      {secret && !needsAccount && <SecretNote kind={guide.kind} />}
      <ol className="space-y-4">
        {steps.map((step, i) => (
          <li key={i} className="flex gap-3">
            <span className="flex h-7 w-7 shrink-0 items-center justify-center rounded-full bg-brand-100 text-sm font-semibold text-brand-700">
              {i + 1}
            </span>
            <div className="min-w-0 flex-1 pt-0.5 text-sm text-slate-700">{step}</div>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function WebhookSettingsPage() {
  const { data, error, loading } = useWebhookUrls();
  const providers = useProviders();
  const urls = data?.urls ?? [];
  const [tab, setTab] = useState<ProviderKind | null>(null);
  // Open on the first provider the user has an account with; Twilio otherwise.
  const owned = new Set((providers.data?.data ?? []).map((p) => p.provider));
  const current = tab ?? GUIDES.find((g) => owned.has(g.kind))?.kind ?? "twilio";
  const guide = GUIDES.find((g) => g.kind === current)!;
  const ready = urls.filter((u): u is WebhookUrl & { url: string } => !!u.url);

  return (
    <div className="space-y-6">
      <div>
        <Link to="/phone-settings" className="text-sm text-brand-700 hover:underline">
          ← Phone Settings
        </Link>
        <h1 className="mt-1 text-2xl font-bold">Incoming SMS webhooks</h1>
        <p className="text-slate-600">
          For two-way SMS, your provider posts each reply (and each delivery report) to a URL unique to you. Paste it at the
          provider once.
        </p>
      </div>

      {error && <Alert>Could not load your webhook URLs: {error.message}</Alert>}

      <Card className="space-y-4 p-5">
        <h2 className="text-lg font-semibold">Your webhook URLs</h2>
        {loading ? (
          <Spinner className="text-slate-400" />
        ) : (
          <>
            {ready.map((u) => (
              <UrlBox key={u.url} entry={u} />
            ))}
            {urls.some((u) => u.needsAccount && !u.url) && (
              <p className="text-sm text-slate-500">
                {urls
                  .filter((u) => u.needsAccount && !u.url)
                  .map((u) => u.label)
                  .join(", ")}
                : add the account in Phone Settings first; each such account gets its own private URL.
              </p>
            )}
          </>
        )}
        <p className="text-xs text-slate-500">
          The URLs use this server's public address. Providers must be able to reach it from the internet, over HTTPS in
          production.
        </p>
      </Card>

      <Card className="p-5">
        <h2 className="mb-4 text-lg font-semibold">Setup instructions</h2>
        <Tabs
          tabs={GUIDES.map((g) => ({ value: g.kind, label: PROVIDER_NAMES[g.kind] }))}
          value={current}
          onChange={setTab}
          label="Providers"
          idPrefix="guide"
          variant="pill"
          className="mb-5 flex-wrap"
        />
        <TabPanel idPrefix="guide" value={current}>
          <Instructions guide={guide} urls={urls.filter((u) => u.provider === current)} />
        </TabPanel>
      </Card>
    </div>
  );
}

import { Link } from "@tanstack/react-router";
import { Card } from "../../components/ui";
import { openAuthModal } from "../../lib/auth-modal";
import type { IconName } from "../../components/icons";
import { IconBadge, PageIntro } from "./shared";

type Feature = { icon: IconName; title: string; text: string; points: string[] };

const GROUPS: { heading: string; lead: string; features: Feature[] }[] = [
  {
    heading: "Reach your customers",
    lead: "Plan, write and send the texts that bring people back.",
    features: [
      {
        icon: "megaphone",
        title: "Campaigns",
        text: "Send a promotion, a reminder or an update to a whole list, a segment or a single contact, now or at a scheduled time.",
        points: [
          "Segment counter that knows GSM-7 and Unicode (160 / 70 characters per single text)",
          "Durable outbox: sent at your provider's rate limit, retried on temporary failures, never sent twice",
          "Per-recipient delivery results and failure reasons",
        ],
      },
      {
        icon: "template",
        title: "Templates",
        text: "Save the messages you send most often, with {first_name}-style variables detected automatically.",
        points: ["Reuse in campaigns and in conversations", "Real usage counts per template", "Search by name or content"],
      },
      {
        icon: "bolt",
        title: "Automation & drips",
        text: "Reply automatically to incoming texts and run drip sequences that welcome new subscribers over days, not seconds.",
        points: ["Auto-replies by rule", "Multi-step drip sequences with delays", "Quiet hours respected at every step"],
      },
    ],
  },
  {
    heading: "Know your audience",
    lead: "A clean, consented list is the most valuable thing you own.",
    features: [
      {
        icon: "users",
        title: "Contacts & CSV import",
        text: "Add contacts by hand or import a CSV with email, phone, first name and last name columns in any order.",
        points: ["Duplicate detection by phone number, with merge", "Tags and bulk tagging", "Opt-out status on every contact"],
      },
      {
        icon: "target",
        title: "Segments",
        text: "Build audiences from conditions such as tags, sign-up date or recent replies and send to exactly those people.",
        points: ["Exact recipient counts before you send", "Ready-made audiences: all, new, recent and loyal", "Segments stay up to date as contacts change"],
      },
      {
        icon: "key",
        title: "Keywords",
        text: "Text-to-join keywords turn a poster, receipt or table card into a signup form: customers text JOIN and they are in.",
        points: ["Automatic reply per keyword", "Tags applied to everyone who joins", "Opt-in recorded with time and source"],
      },
    ],
  },
  {
    heading: "Talk, connect and stay compliant",
    lead: "Conversations, integrations and the rules of the road, handled.",
    features: [
      {
        icon: "chat",
        title: "Two-way chat",
        text: "Every reply lands in a threaded inbox per contact. Answer from your business number in any browser, with new messages in real time.",
        points: ["Conversation history per contact", "Archive finished threads", "Notifications for new replies"],
      },
      {
        icon: "code",
        title: "API keys & webhooks",
        text: "Connect your shop, booking system or CRM: create API keys for incoming calls and outbound webhooks for events such as replies and opt-outs.",
        points: ["Keys stored hashed, shown once", "Outbound webhooks with an optional signing secret", "No fake “connected” badges: you see exactly what is wired up"],
      },
      {
        icon: "shield",
        title: "Compliance",
        text: "The safeguards carriers and regulators expect are on by default, so a busy day never turns into a complaint.",
        points: [
          "STOP, UNSUBSCRIBE, CANCEL, END, QUIT and similar opt out instantly; START opts back in; HELP gets your help text",
          "Quiet hours (21:00–08:00 in the recipient's time zone by default) hold marketing texts until morning",
          "Consent log of every opt-in and opt-out with its time and source; opted-out contacts are always skipped",
        ],
      },
    ],
  },
];

const PROVIDERS = ["Twilio", "Telnyx", "Brevo", "TextMagic", "ClickSend"];

export function FeaturesPage() {
  return (
    <>
      <PageIntro eyebrow="Features" title="Everything a small business needs to market by text">
        <p>
          Campaigns, contacts, conversations and automation in one self-hosted application, sending through SMS provider accounts
          you own.
        </p>
      </PageIntro>

      <div className="mx-auto max-w-6xl space-y-20 px-4 py-16">
        {GROUPS.map((group) => (
          <section key={group.heading} aria-labelledby={slug(group.heading)}>
            <div className="max-w-2xl">
              <h2 id={slug(group.heading)} className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
                {group.heading}
              </h2>
              <p className="mt-2 text-slate-600">{group.lead}</p>
            </div>
            <div className="mt-8 grid gap-6 md:grid-cols-2 lg:grid-cols-3">
              {group.features.map((f) => (
                <Card key={f.title} className="flex flex-col p-6">
                  <IconBadge icon={f.icon} />
                  <h3 className="mt-4 text-lg font-semibold text-slate-900">{f.title}</h3>
                  <p className="mt-2 text-sm leading-relaxed text-slate-600">{f.text}</p>
                  <ul className="mt-4 space-y-2 text-sm text-slate-700">
                    {f.points.map((p) => (
                      <li key={p} className="flex gap-2">
                        <span aria-hidden className="text-brand-600">
                          ✓
                        </span>
                        <span>{p}</span>
                      </li>
                    ))}
                  </ul>
                </Card>
              ))}
            </div>
          </section>
        ))}

        <section aria-labelledby="providers" className="grid gap-10 rounded-3xl bg-slate-50 p-6 sm:p-10 lg:grid-cols-2">
          <div>
            <h2 id="providers" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
              Your own SMS providers
            </h2>
            <p className="mt-3 leading-relaxed text-slate-600">
              smsdesk does not resell messages. Connect the account you already have, or open one with any of the supported
              providers, and keep your numbers, your sender registrations and your carrier pricing. Between them, these providers
              reach more than 200 countries.
            </p>
            <ul className="mt-5 space-y-2 text-sm text-slate-700">
              <li className="flex gap-2">
                <span aria-hidden className="text-brand-600">✓</span>
                Credentials encrypted at rest with AES-256-GCM, with the key kept outside the database
              </li>
              <li className="flex gap-2">
                <span aria-hidden className="text-brand-600">✓</span>
                Delivery receipts and replies verified against the provider's signature where it offers one
              </li>
              <li className="flex gap-2">
                <span aria-hidden className="text-brand-600">✓</span>
                A built-in, clearly labelled simulator to try a whole campaign before connecting a real account
              </li>
            </ul>
          </div>
          <ul className="flex flex-wrap justify-center gap-3 self-center" aria-label="Supported SMS providers">
            {PROVIDERS.map((p) => (
              <li key={p} className="w-[calc(50%-0.375rem)] rounded-xl border border-slate-200 bg-white px-4 py-5 text-center font-semibold text-slate-800 shadow-sm sm:w-36">
                {p}
              </li>
            ))}
          </ul>
        </section>

        <section aria-labelledby="self-hosted" className="grid gap-10 lg:grid-cols-2">
          <div>
            <h2 id="self-hosted" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
              Self-hosted, in a single executable
            </h2>
            <p className="mt-3 leading-relaxed text-slate-600">
              The whole application, interface included, ships as one program. Copy it to a server, point it at a data folder and
              it is running: no separate database server, no extra services to run and no third party holding your customer list.
            </p>
            <p className="mt-3 leading-relaxed text-slate-600">
              Your contacts, messages and consent records live in a SQLite database on your machine. Back up the data folder and
              you have backed up everything.
            </p>
          </div>
          <div className="self-center rounded-xl bg-slate-900 p-6 font-mono text-sm text-slate-100 shadow-lg">
            <p className="text-slate-400"># copy, start, done</p>
            <p className="mt-2">
              <span aria-hidden className="select-none text-brand-500">$ </span>DATA_DIR=/srv/sms/data ./smsdesk
            </p>
            <p className="mt-2 text-slate-400">
              Accounts use argon2id passwords, optional two-factor authentication and passkeys.
            </p>
          </div>
        </section>

        <section className="rounded-3xl border border-brand-100 bg-brand-50 px-6 py-10 text-center sm:px-12">
          <h2 className="text-2xl font-bold tracking-tight text-slate-900">Try every feature free for 14 days</h2>
          <p className="mx-auto mt-3 max-w-xl text-slate-600">No credit card required. Every plan includes compliance tools and two-way chat.</p>
          <div className="mt-6 flex flex-col items-center justify-center gap-3 sm:flex-row">
            <button
              type="button"
              onClick={() => openAuthModal("signup")}
              className="inline-flex w-full items-center justify-center rounded-lg bg-brand-600 px-6 py-3 font-semibold text-white shadow-sm hover:bg-brand-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 sm:w-auto"
            >
              Get Started
            </button>
            <Link to="/pricing" className="font-medium text-brand-700 hover:underline">
              See pricing
            </Link>
          </div>
        </section>
      </div>
    </>
  );
}

function slug(s: string) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

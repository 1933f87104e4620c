import { Link } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { cx } from "../../components/ui";
import { openAuthModal } from "../../lib/auth-modal";
import type { IconName } from "../../components/icons";
import { IconBadge } from "./shared";

const ROTATE_MS = 4000;
const BIG_PRIMARY =
  "inline-flex w-full items-center justify-center rounded-lg bg-brand-600 px-6 py-3 text-base font-semibold text-white shadow-sm transition-colors hover:bg-brand-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2 sm:w-auto";

const STATS = [
  { value: "98%", label: "of text messages are opened", note: "widely cited industry figure for SMS" },
  { value: "90%", label: "of texts are read within 3 minutes", note: "widely cited industry figure for SMS" },
  { value: "200+", label: "countries reachable", note: "through the SMS providers smsdesk supports" },
  { value: "5", label: "SMS providers built in", note: "Twilio, Telnyx, Brevo, TextMagic and ClickSend" },
];

type Bubble = { from: "business" | "customer"; text: string };

const FEATURES: { icon: IconName; title: string; text: string; points: string[]; preview: { title: string; bubbles: Bubble[] } }[] = [
  {
    icon: "megaphone",
    title: "Bulk campaigns that go out once, and only once",
    text: "Write a message, pick an audience and a sender number, then send now or schedule it. Every recipient gets a row in a durable outbox, sent at your provider's rate limit and retried on temporary failures, so a restart never double-sends.",
    points: ["Live segment and character counter (GSM-7 and Unicode)", "Send now or schedule for later", "Delivery results per recipient"],
    preview: {
      title: "Campaign preview",
      bubbles: [
        { from: "business", text: "Hi Sam, it's Bloom & Co. Our spring sale starts Friday: 20% off everything in store. Reply STOP to opt out" },
      ],
    },
  },
  {
    icon: "chat",
    title: "Two-way texting with every customer",
    text: "Replies land in one inbox, threaded by contact. Answer questions, confirm bookings and follow up from your own business number, from any browser, with new messages arriving in real time.",
    points: ["One conversation per contact", "Text-to-join keywords and auto-replies", "Templates for answers you send every day"],
    preview: {
      title: "Conversation",
      bubbles: [
        { from: "customer", text: "Can I move my appointment to Thursday?" },
        { from: "business", text: "Of course! Thursday at 3 PM is free. Shall I book it?" },
        { from: "customer", text: "Yes please, thank you!" },
      ],
    },
  },
  {
    icon: "shield",
    title: "Compliance built in, on your own provider account",
    text: "Connect your own Twilio, Telnyx, Brevo, TextMagic or ClickSend account and keep the carrier relationship you already have. STOP and START are handled automatically, quiet hours hold marketing texts overnight, and every opt-in and opt-out is logged.",
    points: ["STOP, HELP and START handled for you", "Quiet hours in the recipient's time zone", "Consent log with time and source"],
    preview: {
      title: "Automatic opt-out",
      bubbles: [
        { from: "customer", text: "STOP" },
        { from: "business", text: "You have been unsubscribed and will receive no further messages. Reply START to resubscribe." },
      ],
    },
  },
];

const TESTIMONIALS = [
  {
    quote: "We send appointment reminders the day before and the no-shows dropped noticeably. Patients just reply to reschedule, and it all lands in one inbox.",
    who: "Practice manager",
    business: "Family dental clinic",
  },
  {
    quote: "Having it on our own server mattered to us. Our customer list never leaves our hands, and we kept the Twilio account we already had.",
    who: "Owner",
    business: "Independent hardware store",
  },
  {
    quote: "The STOP handling and quiet hours mean I don't have to think about compliance every time I send a promotion. It just does the right thing.",
    who: "Marketing lead",
    business: "Regional fitness studios",
  },
  {
    quote: "Text-to-join keywords on our table cards grew our VIP list faster than any email signup form we ever tried.",
    who: "General manager",
    business: "Neighbourhood restaurant",
  },
];

function Testimonials() {
  const [active, setActive] = useState(0);
  // Changing restartKey restarts the rotation timer, so a picked testimonial stays up for the full interval.
  const [restartKey, setRestartKey] = useState(0);

  useEffect(() => {
    const id = setInterval(() => setActive((i) => (i + 1) % TESTIMONIALS.length), ROTATE_MS);
    return () => clearInterval(id);
  }, [restartKey]);

  const pick = (i: number) => {
    setActive(i);
    setRestartKey((k) => k + 1);
  };
  const current = TESTIMONIALS[active]!;

  return (
    <section aria-labelledby="testimonials-heading" className="bg-slate-50 py-16 sm:py-20">
      <div className="mx-auto max-w-3xl px-4 text-center">
        <h2 id="testimonials-heading" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
          What small businesses tell us
        </h2>
        <div aria-roledescription="carousel" aria-label="Customer testimonials" className="mt-10">
          <figure
            key={active}
            aria-roledescription="slide"
            aria-label={`${active + 1} of ${TESTIMONIALS.length}`}
            className="flex min-h-56 flex-col justify-center rounded-2xl border border-slate-200 bg-white px-6 py-8 shadow-sm sm:min-h-48 sm:px-10"
          >
            <blockquote className="text-lg leading-relaxed text-slate-800 sm:text-xl">“{current.quote}”</blockquote>
            <figcaption className="mt-5 text-sm text-slate-600">
              <span className="font-semibold text-slate-900">{current.who}</span>, {current.business}
            </figcaption>
          </figure>
          <div className="mt-6 flex justify-center gap-1">
            {TESTIMONIALS.map((_, i) => (
              <button
                key={i}
                type="button"
                aria-label={`Show testimonial ${i + 1}`}
                aria-current={i === active ? "true" : undefined}
                onClick={() => pick(i)}
                className="group rounded-full p-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                <span
                  aria-hidden
                  className={cx(
                    "block h-2.5 rounded-full transition-all",
                    i === active ? "w-6 bg-brand-600" : "w-2.5 bg-slate-300 group-hover:bg-slate-400",
                  )}
                />
              </button>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}

function PhonePreview({ title, bubbles }: { title: string; bubbles: Bubble[] }) {
  return (
    <div aria-hidden className="mx-auto w-full max-w-xs rounded-[2rem] border-8 border-slate-900 bg-white p-4 shadow-xl">
      <p className="border-b border-slate-100 pb-2 text-center text-xs font-semibold text-slate-500">{title}</p>
      <div className="mt-4 space-y-3 text-sm">
        {bubbles.map((b, i) => (
          <p
            key={i}
            className={cx(
              "w-fit max-w-[85%] rounded-2xl px-3 py-2",
              b.from === "customer" ? "rounded-bl-sm bg-slate-100 text-slate-800" : "ml-auto rounded-br-sm bg-brand-600 text-white",
            )}
          >
            {b.text}
          </p>
        ))}
      </div>
    </div>
  );
}

export function LandingPage() {
  return (
    <>
      <section className="relative overflow-hidden bg-gradient-to-b from-brand-50 via-white to-white">
        <div className="mx-auto max-w-6xl px-4 pb-16 pt-16 text-center sm:pb-24 sm:pt-24">
          <p className="inline-flex items-center gap-2 rounded-full border border-brand-100 bg-white px-3 py-1 text-xs font-medium text-brand-700 sm:text-sm">
            Self-hosted SMS marketing for small businesses
          </p>
          <h1 className="mx-auto mt-6 max-w-4xl text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
            Text your customers. <span className="text-brand-600">Keep your data.</span>
          </h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg leading-relaxed text-slate-600">
            smsdesk runs bulk campaigns, two-way conversations and text-to-join keywords from a single program on your own
            server, sending through the SMS provider account you already trust.
          </p>
          <div className="mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
            <button type="button" className={BIG_PRIMARY} onClick={() => openAuthModal("signup")}>
              Get Started
            </button>
            <Link
              to="/features"
              className="inline-flex w-full items-center justify-center rounded-lg border border-slate-300 bg-white px-6 py-3 text-base font-medium text-slate-800 hover:bg-slate-50 sm:w-auto"
            >
              See all features →
            </Link>
          </div>
          <p className="mt-4 text-sm text-slate-500">14-day free trial · No credit card required</p>
        </div>
      </section>

      <section aria-labelledby="stats-heading" className="border-y border-slate-200 bg-white py-12">
        <div className="mx-auto max-w-6xl px-4">
          <h2 id="stats-heading" className="sr-only">
            Why text messages work
          </h2>
          <dl className="grid grid-cols-2 gap-6 lg:grid-cols-4">
            {STATS.map((s) => (
              <div key={s.label} className="flex flex-col text-center">
                <dt className="text-sm font-medium text-slate-700">{s.label}</dt>
                <dd className="order-first text-4xl font-extrabold tracking-tight text-brand-600 sm:text-5xl">{s.value}</dd>
                <dd className="mt-1 text-xs text-slate-500">{s.note}</dd>
              </div>
            ))}
          </dl>
        </div>
      </section>

      <section aria-labelledby="features-heading" className="py-16 sm:py-24">
        <div className="mx-auto max-w-6xl px-4">
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="features-heading" className="text-3xl font-bold tracking-tight text-slate-900">
              Everything you need to market by text
            </h2>
            <p className="mt-4 text-lg text-slate-600">
              One installation covers sending, replies and the rules that keep your list healthy.
            </p>
          </div>
          <div className="mt-14 space-y-16 sm:space-y-24">
            {FEATURES.map((f, i) => (
              <div key={f.title} className="grid items-center gap-10 md:grid-cols-2">
                <div className={cx(i % 2 === 1 && "md:order-last")}>
                  <IconBadge icon={f.icon} />
                  <h3 className="mt-4 text-2xl font-bold text-slate-900">{f.title}</h3>
                  <p className="mt-3 leading-relaxed text-slate-600">{f.text}</p>
                  <ul className="mt-5 space-y-2">
                    {f.points.map((p) => (
                      <li key={p} className="flex items-start gap-2 text-slate-700">
                        <span aria-hidden className="mt-0.5 text-brand-600">
                          ✓
                        </span>
                        {p}
                      </li>
                    ))}
                  </ul>
                </div>
                <PhonePreview title={f.preview.title} bubbles={f.preview.bubbles} />
              </div>
            ))}
          </div>
        </div>
      </section>

      <Testimonials />

      <section aria-labelledby="cta-heading" className="py-16 sm:py-20">
        <div className="mx-auto max-w-4xl px-4">
          <div className="rounded-3xl bg-brand-600 px-6 py-12 text-center text-white shadow-lg sm:px-12">
            <p className="inline-block rounded-full bg-white/15 px-3 py-1 text-sm font-semibold">Launch offer</p>
            <h2 id="cta-heading" className="mt-4 text-3xl font-bold tracking-tight sm:text-4xl">
              50% off the first 3 months
            </h2>
            <p className="mx-auto mt-4 max-w-xl text-brand-100">
              Start with a 14-day free trial, no credit card required. Keep going and your first three months on any plan are
              half price.
            </p>
            <div className="mt-8 flex flex-col items-center justify-center gap-3 sm:flex-row">
              <button
                type="button"
                className="inline-flex w-full items-center justify-center rounded-lg bg-white px-6 py-3 text-base font-semibold text-brand-700 shadow-sm transition-colors hover:bg-brand-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-white focus-visible:ring-offset-2 focus-visible:ring-offset-brand-600 sm:w-auto"
                onClick={() => openAuthModal("signup")}
              >
                Get Started
              </button>
              <Link to="/pricing" className="text-sm font-medium text-white underline-offset-4 hover:underline">
                Compare plans
              </Link>
            </div>
          </div>
        </div>
      </section>
    </>
  );
}

import { useSignals } from "@preact/signals-react/runtime";
import { Link } from "@tanstack/react-router";
import { Card, cx } from "../../components/ui";
import type { IconName } from "../../components/icons";
import { auth } from "../../lib/auth";
import { IconBadge, PageIntro } from "./shared";

type Tip = { title: string; text: string; rating: 4 | 5 };
type Category = { id: string; icon: IconName; title: string; lead: string; tips: Tip[] };

const CATEGORIES: Category[] = [
  {
    id: "timing",
    icon: "clock",
    title: "Timing",
    lead: "The same message lands differently at 10 AM and at 10 PM.",
    tips: [
      {
        title: "Send Tuesday to Thursday, 10 AM to 2 PM",
        text: "Mid-week, late-morning to early-afternoon sends tend to get the quickest responses. Mondays are busy and Friday afternoons are already the weekend.",
        rating: 5,
      },
      {
        title: "Send reminders 24 hours before appointments",
        text: "A day's notice gives customers time to confirm or reschedule, and leaves you time to fill a cancelled slot.",
        rating: 5,
      },
      {
        title: "Respect quiet hours",
        text: "Never text promotions late at night or early in the morning. smsdesk holds marketing messages from 21:00 to 08:00 in each recipient's time zone by default.",
        rating: 4,
      },
    ],
  },
  {
    id: "content",
    icon: "pen",
    title: "Message Content",
    lead: "Short, clear and worth reading.",
    tips: [
      {
        title: "Keep messages under 160 characters",
        text: "A message that fits in one text is cheaper, never arrives split and is read at a glance. Watch the counter: one emoji shortens the limit to 70 characters.",
        rating: 5,
      },
      {
        title: "Lead with the value",
        text: "Put the offer or the reason for the text in the first few words: “20% off all shoes this weekend” beats “Hello from all of us at…”.",
        rating: 5,
      },
      {
        title: "Say who you are and end with one clear action",
        text: "Start with your business name so people recognise you, and finish with a single next step: a reply word, a link or a time to come in.",
        rating: 4,
      },
    ],
  },
  {
    id: "audience",
    icon: "target",
    title: "Audience Strategy",
    lead: "The right message to the right people.",
    tips: [
      {
        title: "Segment before you send",
        text: "New subscribers, regulars and lapsed customers want different things. A segment by tag, sign-up date or recent replies makes each text feel personal.",
        rating: 5,
      },
      {
        title: "Personalise with a first name",
        text: "A first-name greeting makes a bulk message read like a note from a person. Keep the rest short so it still fits in one text.",
        rating: 4,
      },
      {
        title: "Don't over-message",
        text: "Two to four marketing texts a month is plenty for most businesses. Every extra message is a chance for someone to reply STOP.",
        rating: 5,
      },
    ],
  },
  {
    id: "campaign-types",
    icon: "megaphone",
    title: "Campaign Types",
    lead: "Mix promotions with messages customers actually need.",
    tips: [
      {
        title: "Flash sales with a short deadline",
        text: "Texts are read quickly, so they suit time-limited offers: “today only” or “this weekend” gives a reason to act now.",
        rating: 5,
      },
      {
        title: "Welcome new subscribers",
        text: "Reply to every new signup straight away with a thank-you and what to expect. An automated welcome drip can follow with a first-visit offer.",
        rating: 5,
      },
      {
        title: "Send service updates, not just offers",
        text: "Holiday hours, order ready for pickup, a new menu: useful updates keep people subscribed for the promotions.",
        rating: 4,
      },
    ],
  },
  {
    id: "growth",
    icon: "chart",
    title: "Growth Tactics",
    lead: "Grow your list with people who want to hear from you.",
    tips: [
      {
        title: "Promote a text-to-join keyword",
        text: "Print “Text JOIN to” and your number on receipts, posters, table cards and your website. Opt-ins are recorded automatically.",
        rating: 5,
      },
      {
        title: "Offer a reason to join",
        text: "A small welcome discount or early access to sales turns a request into a trade people are happy to make.",
        rating: 4,
      },
      {
        title: "Ask at checkout and reply personally",
        text: "Staff asking in person converts well, and answering replies by hand from the chat inbox turns subscribers into regulars.",
        rating: 4,
      },
    ],
  },
];

function Stars({ rating }: { rating: number }) {
  return (
    <span role="img" aria-label={`Rated ${rating} out of 5`} className="whitespace-nowrap text-sm tracking-tight">
      {[1, 2, 3, 4, 5].map((n) => (
        <span key={n} aria-hidden className={cx(n <= rating ? "text-amber-400" : "text-slate-300")}>
          ★
        </span>
      ))}
    </span>
  );
}

export function SmsTipsPage() {
  useSignals();
  const signedIn = auth.value.status === "signed-in";
  return (
    <>
      <PageIntro
        eyebrow="SMS tips"
        title="Proven tips for better text campaigns"
        back={
          <Link to="/" className="text-sm text-brand-700 hover:underline">
            ← Back to {signedIn ? "Dashboard" : "Home"}
          </Link>
        }
      >
        <p>Practical advice on timing, writing and growing your list, so every text earns its place on a customer's phone.</p>
      </PageIntro>

      <div className="mx-auto max-w-6xl px-4 py-12">
        <nav aria-label="Tip categories" className="flex flex-wrap justify-center gap-2">
          {CATEGORIES.map((c) => (
            <a
              key={c.id}
              href={`#${c.id}`}
              className="rounded-full border border-slate-200 bg-white px-4 py-1.5 text-sm font-medium text-slate-700 hover:border-brand-500 hover:text-brand-700"
            >
              {c.title}
            </a>
          ))}
        </nav>

        <div className="mt-12 space-y-16">
          {CATEGORIES.map((c) => (
            <section key={c.id} id={c.id} aria-labelledby={`${c.id}-heading`} className="scroll-mt-24">
              <div className="flex items-center gap-3">
                <IconBadge icon={c.icon} />
                <div>
                  <h2 id={`${c.id}-heading`} className="text-2xl font-bold tracking-tight text-slate-900">
                    {c.title}
                  </h2>
                  <p className="text-sm text-slate-600">{c.lead}</p>
                </div>
              </div>
              <div className="mt-6 grid gap-6 md:grid-cols-3">
                {c.tips.map((t) => (
                  <Card key={t.title} className="flex flex-col p-6">
                    <Stars rating={t.rating} />
                    <h3 className="mt-3 font-semibold text-slate-900">{t.title}</h3>
                    <p className="mt-2 text-sm leading-relaxed text-slate-600">{t.text}</p>
                  </Card>
                ))}
              </div>
            </section>
          ))}
        </div>

        <section className="mt-20 rounded-3xl bg-brand-600 px-6 py-12 text-center text-white sm:px-12">
          <h2 className="text-2xl font-bold tracking-tight sm:text-3xl">Put these tips to work</h2>
          <p className="mx-auto mt-3 max-w-xl text-brand-100">
            Write a short, well-timed message to the right segment and schedule it for Tuesday morning.
          </p>
          <Link
            to="/sms-campaigns"
            className="mt-8 inline-flex items-center justify-center rounded-lg bg-white px-6 py-3 font-semibold text-brand-700 shadow-sm hover:bg-brand-50"
          >
            Create a campaign
          </Link>
        </section>
      </div>
    </>
  );
}

import { Link } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { Card, Input } from "../../components/ui";
import type { IconName } from "../../components/icons";
import { KEYWORD_RULES } from "../app/keywords/rules";
import { PLAIN_RULES } from "../../../shared/keywords/plain-opt-out";
import { CLICK_RULES } from "../../../shared/links/classify";
import { AB_RULES } from "../../../shared/campaigns/ab-stats";
import { PlainOptOuts, PLAIN_OPT_OUT_TEXT } from "./plain-opt-outs";
import { IconBadge, PageIntro } from "./shared";
import { StateRulesSection } from "./state-rules-section";
import { MmsSection } from "./mms-section";

type QA = { q: string; a: string };
type Topic = { id: string; icon: IconName; title: string; items: QA[] };
type Article = { title: string; summary: string; body: string[] };

const TOPICS: Topic[] = [
  {
    id: "getting-started",
    icon: "flag",
    title: "Getting started",
    items: [
      {
        q: "How do I set up my account?",
        a: "Sign up with your email, enter the 6-digit code we email you, then answer the four short setup questions about your business. After that, connect an SMS provider in Phone Settings and import your contacts.",
      },
      {
        q: "Can I try smsdesk before connecting a real SMS provider?",
        a: "Yes. Every installation includes a simulator provider, clearly labelled as simulated. It accepts messages and reports delivery exactly like a real provider, so you can run a whole campaign end to end without sending a real text.",
      },
      {
        q: "Where do I enter a license code?",
        a: "Type it in the License Code field when you sign up, or redeem it later on the License page in your account. The code activates the plan it was issued for.",
      },
    ],
  },
  {
    id: "contacts",
    icon: "users",
    title: "Contacts & imports",
    items: [
      {
        q: "What should my CSV file look like?",
        a: "A .csv file with a header row using any of these columns: email, phone (or phone_number), first_name (or firstname) and last_name (or lastname). Header names are not case-sensitive. Rows without a phone number are skipped.",
      },
      {
        q: "How are duplicate contacts handled?",
        a: "Contacts whose phone numbers have the same digits are flagged as duplicates, whatever the spacing or punctuation. Use Merge to choose the contact to keep as primary and fold the others into it.",
      },
      {
        q: "What does a contact need?",
        a: "At least a first or last name, and either a phone number or an email address. To receive texts a contact needs a phone number and must not have opted out.",
      },
    ],
  },
  {
    id: "campaigns",
    icon: "megaphone",
    title: "Campaigns",
    items: [
      {
        q: "How long can a text message be?",
        a: "A single SMS holds 160 standard (GSM-7) characters, or 70 if it contains characters such as emoji. Longer messages are sent in parts of 153 or 67 characters. The counter under the message shows the encoding, the character count and the number of parts as you type.",
      },
      {
        q: "Can I schedule a campaign?",
        a: "Yes. Choose to send later and pick the date and time. Marketing messages that would land during quiet hours are held until quiet hours end for that recipient.",
      },
      {
        q: "Why were some recipients not sent to?",
        a: "Contacts who have opted out are always skipped. For anything else, open Sent Messages to see each recipient's outcome and the reason your provider gave for a failure.",
      },
    ],
  },
  {
    id: "chat",
    icon: "chat",
    title: "Replies",
    items: [
      {
        q: "What happens when a customer replies?",
        a: "Replies reach your number and appear in Chat & Replies as a conversation with the contact, live, with a notification in the app. Answer from there; STOP, START and HELP are answered automatically, and keywords reply on their own.",
      },
      {
        q: "Can I text a single customer?",
        a: "Yes. Open the conversation in Chat & Replies and type your text, or use Send Message on the contact, which opens a campaign addressed to that one person with a preview of the text exactly as they will read it.",
      },
      {
        q: "Can I send a picture or a file in a reply?",
        a: "Yes, from a Twilio, Telnyx or simulator number. In Chat & Replies the paperclip attaches up to 5 JPEG, PNG or GIF pictures, PDFs or vCards to a reply, with or without text, and it goes out as one MMS. A picture larger than carriers deliver is made smaller, to 600 KB at most, as it is uploaded; SVG and HTML files are refused.",
      },
    ],
  },
  {
    id: "keywords",
    icon: "key",
    title: "Keywords",
    items: [
      {
        q: "What is a text-to-join keyword?",
        a: "A word customers text to your number, such as JOIN or VIP, to sign up. Create one under Keywords: a text of that word adds or tags the contact, records their consent and replies with your welcome text, optionally after they confirm with Y (double opt-in). The compliance words STOP, START and HELP are always handled before any keyword.",
      },
      {
        q: "Can I use STOP or HELP as a keyword?",
        a: "Choose a different word. STOP, START, HELP and their variants are compliance words that smsdesk always handles itself, before any keyword.",
      },
    ],
  },
  {
    id: "providers",
    icon: "mobile",
    title: "Phone settings & providers",
    items: [
      {
        q: "Which SMS providers can I use?",
        a: "Twilio, Telnyx, Brevo, TextMagic and ClickSend. You connect your own account, so numbers, sender registrations and per-message charges stay between you and your provider.",
      },
      {
        q: "How do I connect a provider?",
        a: "In Phone Settings, add a provider, give it a display name and enter the credentials from your provider's dashboard (for Twilio, the Account SID and Auth Token). Use Test to check the connection, then add the numbers you want to send from.",
      },
      {
        q: "Why are my texts to US numbers blocked (error 30034 or 30032)?",
        a: "US carriers block texts from local numbers that are not in a registered A2P 10DLC campaign, and from toll-free numbers that are not verified. Phone Settings, Phone Numbers shows each number's registration as Twilio or Telnyx reports it (registered, pending, rejected with the reviewers' reason, or unregistered), read twice a day or with Check now, and what to do. A campaign from a blocked number to US recipients warns you before it is sent, and a failed message's carrier code is explained in the campaign's details.",
      },
      {
        q: "How do delivery receipts and replies reach smsdesk?",
        a: "Point your provider's status and inbound message webhooks at the address shown on the Webhook setup page. smsdesk must be reachable from the internet at that address for replies to arrive.",
      },
    ],
  },
  {
    id: "links",
    icon: "target",
    title: "Links & clicks",
    items: [
      {
        q: "How are links in my campaigns shortened?",
        a: "When a campaign is sent, each link in its text becomes a short link on your link domain (your installation's address unless you set your own in Account Settings), such as https://sms.example.com/l/Ab3xK9q: seven characters per recipient and link, so a click is known to come from that contact and that campaign. Carriers trust a business's own domain where they filter public shorteners. The message's length, segments and cost are counted with the short link. A campaign can turn shortening off, add UTM parameters (utm_source, utm_medium, utm_campaign) to where its links lead, and choose after how many days its links expire (90 by default); an expired link shows a page saying so.",
      },
      {
        q: "Which clicks count?",
        a: `Every hit of a short link is kept with its time, browser (user agent) and kind of address, and the first of these rules that matches decides what it was. ${CLICK_RULES.map((r) => `${r.title}: ${r.rule}`).join(" ")}`,
      },
      {
        q: "How do A/B tests work?",
        a: AB_RULES.join(" "),
      },
    ],
  },
  {
    id: "compliance",
    icon: "shield",
    title: "Compliance",
    items: [
      {
        q: "What happens when someone texts STOP?",
        a: "STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT and REVOKE opt the contact out and send one confirmation. They are skipped in every later send. START, UNSTOP or YES opts them back in (YES or Y answering a keyword's double opt-in confirms it with that keyword's welcome), and HELP or INFO gets your HELP reply: your business name and how to reach you, set under Account Settings.",
      },
      {
        q: "Does “please stop texting me” opt a contact out?",
        a: `${PLAIN_RULES[0]} ${PLAIN_RULES[4]} The rules and every phrase are under “Opt-outs in plain words” below.`,
      },
      {
        q: "How do text-to-join keywords match?",
        a: KEYWORD_RULES.join(" "),
      },
      {
        q: "What are quiet hours?",
        a: "A window, 21:00 to 08:00 by default, in which marketing messages are held back. It uses the recipient's local time when known and your account's time zone otherwise. Held messages go out when the window ends. Some states allow fewer hours or fewer texts a day: see State rules for marketing texts below.",
      },
      {
        q: "Can I prove someone opted in?",
        a: "Yes. Every opt-in and opt-out is recorded in the consent log with its time and source, such as a keyword, an import or a STOP reply.",
      },
    ],
  },
  {
    id: "account",
    icon: "lock",
    title: "Account & security",
    items: [
      {
        q: "How do I turn on two-factor authentication?",
        a: "Go to Security in your account, add smsdesk to an authenticator app and enter the 6-digit code it shows. Save the backup codes somewhere safe: each one can be used once if you lose your phone.",
      },
      {
        q: "Can I sign in with a passkey?",
        a: "Yes, on browsers that support passkeys. Register one under Security, then use “Sign in with a passkey” on the sign-in screen instead of typing your email and password.",
      },
      {
        q: "I forgot my password. What now?",
        a: "Choose Forgot your password on the sign-in screen and enter your email. We email you a link to set a new password; it works once and expires after 60 minutes.",
      },
    ],
  },
];

const ARTICLES: Article[] = [
  {
    title: "Send your first campaign",
    summary: "From a blank message to delivered texts in a few steps.",
    body: [
      "Open Send Messages and choose the kind of message: a promotion, a reminder, an update or a welcome.",
      "Write your text and watch the counter: keeping it to one 160-character part keeps it cheap and readable.",
      "Pick your audience and the number to send from, then send now or schedule it. Results appear in Sent Messages as your provider reports them.",
    ],
  },
  {
    title: "Import contacts from a spreadsheet",
    summary: "Export a CSV from your spreadsheet or point-of-sale system and bring everyone in at once.",
    body: [
      "Save your list as CSV with a header row: phone, first_name, last_name and email are recognised.",
      "Upload it on Customer Lists. Rows without a phone number are skipped and duplicates by phone number are reported so you can merge them.",
      "Only import people who agreed to receive texts from you; the import is recorded as the source of their consent.",
    ],
  },
  {
    title: "Connect your Twilio account",
    summary: "Find your credentials, add the provider and pick your sending number.",
    body: [
      "In the Twilio Console, copy your Account SID and Auth Token.",
      "In Phone Settings, add Twilio as a provider, paste the credentials and press Test.",
      "Add the Twilio number you want to send from, then set the inbound and status webhooks in Twilio to the address on the Webhook setup page.",
    ],
  },
  {
    title: "Understanding segments and character limits",
    summary: "Why one emoji can double the cost of a text.",
    body: [
      "Standard characters use the GSM-7 alphabet: 160 fit in one text, 153 per part when a message is split.",
      "A single emoji or special character switches the whole message to Unicode: 70 characters in one text, 67 per part.",
      "A few characters such as € and square brackets count twice in GSM-7. The counter accounts for all of this as you type.",
    ],
  },
  {
    title: "Opt-outs and quiet hours explained",
    summary: "What smsdesk does automatically to keep you compliant.",
    body: [
      "A contact who replies STOP or a similar word is opted out immediately and receives one confirmation; they are skipped in every future send.",
      "Marketing texts scheduled between 21:00 and 08:00 in the recipient's time zone are held until morning.",
      "In states with stricter laws (the table under State rules for marketing texts) a text is held until the state's rule lets it go, and the campaign's recipients say which rule held it.",
      "Campaign messages include opt-out wording such as “Reply STOP to opt out” unless you turn it off.",
    ],
  },
];

const TUTORIALS = [
  {
    title: "Your first campaign",
    steps: ["Connect the simulator or a real provider", "Import a small test list", "Write and preview a message", "Send and read the results"],
  },
  {
    title: "Providers and phone numbers",
    steps: ["Find your provider credentials", "Add and test the provider", "Add a sending number", "Set the delivery and reply webhooks"],
  },
];

const matches = (query: string, ...texts: string[]) => {
  const haystack = texts.join(" ").toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
};

export function HelpPage() {
  const [query, setQuery] = useState("");
  const q = query.trim();

  const topics = useMemo(() => {
    if (!q) return TOPICS;
    return TOPICS.flatMap((t) => {
      if (matches(q, t.title)) return [t];
      const items = t.items.filter((i) => matches(q, t.title, i.q, i.a));
      return items.length ? [{ ...t, items }] : [];
    });
  }, [q]);
  const articles = useMemo(() => (q ? ARTICLES.filter((a) => matches(q, a.title, a.summary, ...a.body)) : ARTICLES), [q]);
  const plainShown = !q || matches(q, PLAIN_OPT_OUT_TEXT);
  const nothing = topics.length === 0 && articles.length === 0 && !plainShown;

  return (
    <>
      <PageIntro eyebrow="Help Center" title="How can we help?">
        <p>Answers to common questions about sending, contacts, providers and compliance.</p>
        <form role="search" className="mx-auto mt-8 max-w-xl" onSubmit={(e) => e.preventDefault()}>
          <label htmlFor="help-search" className="sr-only">
            Search help topics and articles
          </label>
          <Input
            id="help-search"
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search, for example “CSV” or “STOP”"
            className="py-3 text-base"
          />
        </form>
        <p aria-live="polite" className="mt-3 text-sm text-slate-500">
          {q && !nothing && `Showing results for “${q}”`}
        </p>
      </PageIntro>

      <div className="mx-auto max-w-6xl space-y-16 px-4 py-16">
        <section aria-labelledby="support-channels">
          <h2 id="support-channels" className="sr-only">
            Get in touch
          </h2>
          <div className="grid gap-6 md:grid-cols-3">
            <Card className="flex flex-col p-6">
              <IconBadge icon="flag" />
              <h3 className="mt-4 font-semibold text-slate-900">Help Articles</h3>
              <p className="mt-1 text-sm font-medium text-brand-700">Always available</p>
              <p className="mt-2 flex-1 text-sm text-slate-600">
                Step-by-step answers about contacts, campaigns, SMS providers and your account. Search them above.
              </p>
              <a href="#help-topics" className="mt-4 text-sm font-semibold text-brand-700 hover:underline">
                Browse help topics →
              </a>
            </Card>
            <Card className="flex flex-col p-6">
              <IconBadge icon="mail" />
              <h3 className="mt-4 font-semibold text-slate-900">Email Support</h3>
              <p className="mt-1 text-sm font-medium text-brand-700">Response within 2 hours</p>
              <p className="mt-2 flex-1 text-sm text-slate-600">Describe the problem and we will get back to you by email.</p>
              <Link to="/contact" className="mt-4 text-sm font-semibold text-brand-700 hover:underline">
                Send us a message →
              </Link>
            </Card>
            <Card className="flex flex-col p-6">
              <IconBadge icon="phone" />
              <h3 className="mt-4 font-semibold text-slate-900">Phone Support</h3>
              <p className="mt-1 text-sm font-medium text-brand-700">Monday to Friday, 9 AM to 6 PM EST</p>
              <p className="mt-2 flex-1 text-sm text-slate-600">
                Leave your number in the contact form and we will call you back during business hours.
              </p>
              <Link to="/contact" className="mt-4 text-sm font-semibold text-brand-700 hover:underline">
                Request a call →
              </Link>
            </Card>
          </div>
        </section>

        {nothing && (
          <div role="status" className="rounded-2xl border border-dashed border-slate-300 px-6 py-12 text-center">
            <p className="font-semibold text-slate-900">No results for “{q}”</p>
            <p className="mt-2 text-sm text-slate-600">
              Try a different word, or{" "}
              <Link to="/contact" className="font-medium text-brand-700 hover:underline">
                ask our team
              </Link>
              .
            </p>
            <button type="button" onClick={() => setQuery("")} className="mt-4 text-sm font-semibold text-brand-700 hover:underline">
              Clear search
            </button>
          </div>
        )}

        {topics.length > 0 && (
          <section aria-labelledby="help-topics">
            <h2 id="help-topics" className="text-2xl font-bold tracking-tight text-slate-900">
              Help topics
            </h2>
            <div className="mt-8 grid gap-6 md:grid-cols-2">
              {topics.map((t) => (
                <Card key={t.id} className="p-6">
                  <div className="flex items-center gap-3">
                    <IconBadge icon={t.icon} className="h-9 w-9 text-base" />
                    <h3 className="text-lg font-semibold text-slate-900">{t.title}</h3>
                  </div>
                  <dl className="mt-4 space-y-4">
                    {t.items.map((i) => (
                      <div key={i.q}>
                        <dt className="text-sm font-semibold text-slate-900">{i.q}</dt>
                        <dd className="mt-1 text-sm leading-relaxed text-slate-600">{i.a}</dd>
                      </div>
                    ))}
                  </dl>
                </Card>
              ))}
            </div>
          </section>
        )}

        {plainShown && <PlainOptOuts open={Boolean(q)} />}

        {articles.length > 0 && (
          <section aria-labelledby="popular-articles">
            <h2 id="popular-articles" className="text-2xl font-bold tracking-tight text-slate-900">
              Popular articles
            </h2>
            <div className="mt-8 divide-y divide-slate-200 rounded-2xl border border-slate-200 bg-white">
              {articles.map((a) => (
                <details key={a.title} className="group px-6 py-4" open={Boolean(q)}>
                  <summary className="flex cursor-pointer list-none items-start justify-between gap-4 [&::-webkit-details-marker]:hidden">
                    <span>
                      <span className="block font-semibold text-slate-900">{a.title}</span>
                      <span className="mt-0.5 block text-sm text-slate-600">{a.summary}</span>
                    </span>
                    <span aria-hidden className="mt-1 text-slate-400 transition-transform group-open:rotate-180">
                      ▾
                    </span>
                  </summary>
                  <ol className="mt-4 list-decimal space-y-2 pl-5 text-sm leading-relaxed text-slate-700">
                    {a.body.map((p) => (
                      <li key={p}>{p}</li>
                    ))}
                  </ol>
                </details>
              ))}
            </div>
          </section>
        )}

        <MmsSection />

        <StateRulesSection />

        <section aria-labelledby="video-tutorials">
          <h2 id="video-tutorials" className="text-2xl font-bold tracking-tight text-slate-900">
            Video tutorials
          </h2>
          <p className="mt-2 max-w-2xl text-slate-600">
            Prefer to watch? We walk you through smsdesk on a live screen share, following one of these outlines or your own
            questions. Ask for a session through the contact form.
          </p>
          <div className="mt-8 grid gap-6 md:grid-cols-3">
            {TUTORIALS.map((t) => (
              <Card key={t.title} className="flex flex-col overflow-hidden">
                <div aria-hidden className="flex h-28 items-center justify-center bg-gradient-to-br from-brand-500 to-brand-700">
                  <span className="rounded-full bg-white/90 px-3 py-1 text-xs font-semibold text-brand-700">Live screen-share walkthrough</span>
                </div>
                <div className="flex flex-1 flex-col p-6">
                  <h3 className="font-semibold text-slate-900">{t.title}</h3>
                  <ol className="mt-3 flex-1 list-decimal space-y-1 pl-5 text-sm text-slate-600">
                    {t.steps.map((s) => (
                      <li key={s}>{s}</li>
                    ))}
                  </ol>
                  <Link to="/contact" className="mt-4 text-sm font-semibold text-brand-700 hover:underline">
                    Request this walkthrough →
                  </Link>
                </div>
              </Card>
            ))}
          </div>
        </section>

        <div className="flex flex-col items-center gap-3 border-t border-slate-200 pt-10 text-center">
          <p className="text-slate-600">Didn't find what you were looking for?</p>
          <div className="flex flex-wrap justify-center gap-4 text-sm font-semibold">
            <Link to="/contact" className="text-brand-700 hover:underline">
              Contact support
            </Link>
            <Link to="/" className="text-brand-700 hover:underline">
              Back to Home
            </Link>
          </div>
        </div>
      </div>
    </>
  );
}

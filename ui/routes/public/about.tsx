import { Link } from "@tanstack/react-router";
import { Card } from "../../components/ui";
import type { IconName } from "../../components/icons";
import { IconBadge, PageIntro } from "./shared";

const VALUES: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "home",
    title: "Your data stays home",
    text: "Customer lists are the heart of a small business. smsdesk keeps them in a database on your own server instead of in someone else's cloud.",
  },
  {
    icon: "heart",
    title: "Respect for the people you text",
    text: "Opt-outs are honoured instantly and always, quiet hours keep promotions out of the night, and every consent is recorded. Good manners are also good deliverability.",
  },
  {
    icon: "box",
    title: "Simple to run",
    text: "One program and one data folder. No database server to babysit, no tangle of services. Back up a folder and you are done.",
  },
  {
    icon: "unlock",
    title: "No lock-in",
    text: "You send through your own provider account, with your own numbers and registrations. If you ever leave, your numbers and your list leave with you.",
  },
];

const STEPS = [
  {
    title: "Install",
    text: "Copy the smsdesk executable to a server or a small virtual machine and start it. It creates its database and encryption key in the data folder you choose.",
  },
  {
    title: "Connect your provider",
    text: "Add your Twilio, Telnyx, Brevo, TextMagic or ClickSend credentials and pick the numbers to send from. Or try everything first with the built-in simulator.",
  },
  {
    title: "Import and send",
    text: "Import your contacts from a CSV file, write your first campaign and watch replies arrive in the chat inbox.",
  },
];

export function AboutPage() {
  return (
    <>
      <PageIntro eyebrow="About smsdesk" title="Text marketing that belongs to you">
        <p>
          smsdesk is an SMS marketing application for small businesses and agencies that you run on your own server. It sends
          campaigns, handles replies and keeps your list compliant, without handing your customers to a third party.
        </p>
      </PageIntro>

      <div className="mx-auto max-w-6xl space-y-20 px-4 py-16">
        <section aria-labelledby="why" className="grid gap-10 lg:grid-cols-2">
          <div>
            <h2 id="why" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
              Why we built it
            </h2>
            <p className="mt-6 border-l-4 border-brand-500 pl-4 text-xl font-medium leading-relaxed text-slate-800">
              One program. One data folder. Your provider, your numbers and your customers.
            </p>
          </div>
          <div className="space-y-4 leading-relaxed text-slate-600">
            <p>
              Text messages are the most direct line a business has to its customers: they are short, personal and read within
              minutes. Yet most SMS marketing tools ask you to upload your whole customer list to their servers, buy messages at
              their markup and accept whatever happens to your data later.
            </p>
            <p>
              smsdesk takes a different route. It is a complete application in a single executable that you install on a machine
              you control. Messages go out through an SMS provider account in your own name, so you keep your phone numbers, your
              carrier registrations and your pricing.
            </p>
            <p>
              It is built for the owners and staff of salons, clinics, gyms, restaurants, shops and the agencies that serve them:
              people who want to send a promotion, a reminder or a welcome text without becoming experts in telecom rules.
            </p>
          </div>
        </section>

        <section aria-labelledby="values">
          <h2 id="values" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
            What we care about
          </h2>
          <div className="mt-8 grid gap-6 sm:grid-cols-2">
            {VALUES.map((v) => (
              <Card key={v.title} className="flex gap-4 p-6">
                <IconBadge icon={v.icon} />
                <div>
                  <h3 className="font-semibold text-slate-900">{v.title}</h3>
                  <p className="mt-1 text-sm leading-relaxed text-slate-600">{v.text}</p>
                </div>
              </Card>
            ))}
          </div>
        </section>

        <section aria-labelledby="how">
          <h2 id="how" className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">
            How it works
          </h2>
          <ol className="mt-8 grid gap-6 md:grid-cols-3">
            {STEPS.map((s, i) => (
              <li key={s.title} className="rounded-2xl border border-slate-200 bg-slate-50 p-6">
                <span
                  aria-hidden
                  className="inline-flex h-9 w-9 items-center justify-center rounded-full bg-brand-600 font-semibold text-white"
                >
                  {i + 1}
                </span>
                <h3 className="mt-4 font-semibold text-slate-900">{s.title}</h3>
                <p className="mt-2 text-sm leading-relaxed text-slate-600">{s.text}</p>
              </li>
            ))}
          </ol>
        </section>

        <section className="rounded-3xl border border-brand-100 bg-brand-50 px-6 py-10 text-center sm:px-12">
          <h2 className="text-2xl font-bold tracking-tight text-slate-900">Want to know more?</h2>
          <p className="mx-auto mt-3 max-w-xl text-slate-600">
            See everything smsdesk can do, compare the plans, or ask us a question directly.
          </p>
          <div className="mt-6 flex flex-wrap items-center justify-center gap-3">
            <Link to="/features" className="rounded-lg bg-brand-600 px-5 py-2.5 text-sm font-semibold text-white hover:bg-brand-700">
              Explore features
            </Link>
            <Link
              to="/pricing"
              className="rounded-lg border border-slate-300 bg-white px-5 py-2.5 text-sm font-semibold text-slate-800 hover:bg-slate-50"
            >
              View pricing
            </Link>
            <Link to="/contact" className="px-3 py-2.5 text-sm font-semibold text-brand-700 hover:underline">
              Contact us
            </Link>
          </div>
        </section>
      </div>
    </>
  );
}

import { Link } from "@tanstack/react-router";
import { cx } from "../../components/ui";
import { openAuthModal } from "../../lib/auth-modal";
import { PageIntro } from "./shared";

type Plan = { name: string; price: number; blurb: string; features: string[]; popular?: boolean };

const PLANS: Plan[] = [
  {
    name: "Starter",
    price: 59,
    blurb: "For a single shop or practice getting started with text marketing.",
    features: ["5,000 SMS per month", "1,000 contacts", "1 phone number", "Campaigns, contacts, keywords and templates", "Two-way chat", "STOP handling, quiet hours and consent log"],
  },
  {
    name: "Professional",
    price: 159,
    blurb: "For growing businesses that automate and connect their other tools.",
    features: ["25,000 SMS per month", "10,000 contacts", "3 phone numbers", "API access", "Everything in Starter"],
    popular: true,
  },
  {
    name: "Enterprise",
    price: 249,
    blurb: "For multi-location businesses and agencies sending at volume.",
    features: ["100,000 SMS per month", "Unlimited contacts", "10 phone numbers", "Everything in Professional"],
  },
];

const FAQ = [
  {
    q: "How does the free trial work?",
    a: "Every new account starts with 14 days of the Starter plan for free: 5,000 SMS a month, 1,000 contacts and one phone number. No credit card is needed. To keep sending after the trial, choose a plan or redeem a license code on the License page.",
  },
  {
    q: "What happens if I send more than my plan includes?",
    a: "When you reach 80% of your monthly message or contact limit, smsdesk shows you a notice so there are no surprises. At the limit, smsdesk refuses new sends (or new contacts) until the next month, or until you move to a larger plan or redeem a license code: nothing is ever charged beyond your plan.",
  },
  {
    q: "Are carrier fees included?",
    a: "smsdesk sends through your own Twilio, Telnyx, Brevo, TextMagic or ClickSend account, so per-message carrier charges and number rental are billed by your provider at your own rates. The plan price covers the smsdesk software, updates and support.",
  },
  {
    q: "I have a license code from a deal platform. Where do I enter it?",
    a: "Enter it in the License Code field when you sign up, or later from the License page in your account. The code activates the plan it was issued for.",
  },
  {
    q: "Can I change or cancel my plan?",
    a: "Yes. You can move to a larger or smaller plan, or cancel, at any time. Because smsdesk runs on your own server, your contacts and history stay with you either way.",
  },
];

const check = (
  <span aria-hidden className="mt-0.5 text-brand-600">
    ✓
  </span>
);

function PlanCard({ plan }: { plan: Plan }) {
  const headingId = `plan-${plan.name.toLowerCase()}`;
  return (
    <section
      aria-labelledby={headingId}
      className={cx(
        "relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm sm:p-8",
        plan.popular ? "border-brand-500 shadow-lg ring-2 ring-brand-500" : "border-slate-200",
      )}
    >
      {plan.popular && (
        <p className="absolute -top-3 left-1/2 -translate-x-1/2 whitespace-nowrap rounded-full bg-brand-600 px-3 py-1 text-xs font-semibold uppercase tracking-wide text-white">
          Most Popular
        </p>
      )}
      <h2 id={headingId} className="text-lg font-semibold text-slate-900">
        {plan.name}
      </h2>
      <p className="mt-2 text-sm text-slate-600">{plan.blurb}</p>
      <p className="mt-6 flex items-baseline gap-1">
        <span className="text-4xl font-extrabold tracking-tight text-slate-900">${plan.price}</span>
        <span className="text-sm text-slate-500">/month</span>
      </p>
      <button
        type="button"
        onClick={() => openAuthModal("signup")}
        aria-describedby={headingId}
        className={cx(
          "mt-6 inline-flex w-full items-center justify-center rounded-lg px-4 py-2.5 text-sm font-semibold transition-colors focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2",
          plan.popular ? "bg-brand-600 text-white hover:bg-brand-700" : "border border-brand-600 bg-white text-brand-700 hover:bg-brand-50",
        )}
      >
        Start free trial
      </button>
      <ul className="mt-8 space-y-3 text-sm text-slate-700">
        {plan.features.map((f) => (
          <li key={f} className="flex gap-2">
            {check}
            <span>{f}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function PricingPage() {
  return (
    <>
      <PageIntro eyebrow="Pricing" title="Simple plans that grow with your list">
        <p>Start with a 14-day free trial of Starter, no credit card required. Every plan includes two-way chat and compliance tools.</p>
      </PageIntro>

      <div className="mx-auto max-w-6xl px-4 py-16">
        <div className="grid gap-8 lg:grid-cols-3 lg:gap-6">
          {PLANS.map((plan) => (
            <PlanCard key={plan.name} plan={plan} />
          ))}
        </div>

        <div className="mt-12 grid gap-4 sm:grid-cols-3">
          <div className="rounded-xl border border-slate-200 bg-slate-50 p-5">
            <p className="font-semibold text-slate-900">14-day free trial</p>
            <p className="mt-1 text-sm text-slate-600">The Starter plan, free for 14 days. No credit card required.</p>
          </div>
          <div className="rounded-xl border border-slate-200 bg-slate-50 p-5">
            <p className="font-semibold text-slate-900">No overage charges</p>
            <p className="mt-1 text-sm text-slate-600">At your monthly allowance new sends are refused, never billed: move to a larger plan or redeem a code to go on.</p>
          </div>
          <div className="rounded-xl border border-slate-200 bg-slate-50 p-5">
            <p className="font-semibold text-slate-900">Notice at 80% of your limit</p>
            <p className="mt-1 text-sm text-slate-600">You are told before you run out, never cut off by surprise.</p>
          </div>
        </div>

        <section aria-labelledby="pricing-faq" className="mx-auto mt-20 max-w-3xl">
          <h2 id="pricing-faq" className="text-center text-2xl font-bold tracking-tight text-slate-900">
            Frequently asked questions
          </h2>
          <dl className="mt-8 divide-y divide-slate-200 border-y border-slate-200">
            {FAQ.map((item) => (
              <div key={item.q} className="py-5">
                <dt className="font-semibold text-slate-900">{item.q}</dt>
                <dd className="mt-2 leading-relaxed text-slate-600">{item.a}</dd>
              </div>
            ))}
          </dl>
          <p className="mt-8 text-center text-slate-600">
            Still deciding?{" "}
            <Link to="/contact" className="font-medium text-brand-700 hover:underline">
              Talk to us
            </Link>{" "}
            or{" "}
            <Link to="/features" className="font-medium text-brand-700 hover:underline">
              browse the features
            </Link>
            .
          </p>
        </section>
      </div>
    </>
  );
}

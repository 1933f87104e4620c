import { Link } from "@tanstack/react-router";
import { useState, type FormEvent } from "react";
import { Button, Card, Field, Input, Select, Spinner, cx } from "../../components/ui";
import { sendContactMessage } from "../../api/support";
import { ApiError } from "../../lib/api";
import { toast } from "../../lib/toast";
import { useMutation } from "../../lib/use-mutation";
import type { IconName } from "../../components/icons";
import { IconBadge, PageIntro } from "./shared";

type Priority = "low" | "normal" | "high" | "critical";
type Form = { name: string; email: string; company: string; phone: string; subject: string; priority: Priority; message: string };

const EMPTY: Form = { name: "", email: "", company: "", phone: "", subject: "", priority: "normal", message: "" };

const CHANNELS: { icon: IconName; title: string; text: string; detail: string }[] = [
  {
    icon: "mail",
    title: "Email support",
    text: "Send us a message with the form on this page. We reply within 24 hours.",
    detail: "Replies within 24 hours",
  },
  {
    icon: "flag",
    title: "Help articles",
    text: "Step-by-step answers about contacts, campaigns and SMS providers, on the Help page.",
    detail: "Always available",
  },
  {
    icon: "phone",
    title: "Phone support",
    text: "Prefer to talk it through? Leave your number in the form and we will call you back.",
    detail: "During business hours",
  },
];

const TOPICS = [
  { label: "Getting started and installation", subject: "Getting started" },
  { label: "Connecting an SMS provider or phone number", subject: "SMS provider setup" },
  { label: "Campaign delivery and failed messages", subject: "Message delivery" },
  { label: "Opt-outs, consent and compliance", subject: "Compliance question" },
  { label: "Plans, license codes and billing", subject: "Plans and billing" },
  { label: "API keys, webhooks and integrations", subject: "API and integrations" },
  { label: "Feature requests and feedback", subject: "Feature request" },
];

const FALLBACK = "Failed to send message. Please try again.";

export function ContactPage() {
  const [form, setForm] = useState<Form>(EMPTY);
  const send = useMutation(
    (body: Parameters<typeof sendContactMessage>[0]) =>
      // The server's reason when it gave one; a failed connection reads as the plain sentence.
      sendContactMessage(body).catch((err: unknown) => Promise.reject(err instanceof ApiError && err.message ? err : new Error(FALLBACK))),
    {
      onSuccess: () => setForm(EMPTY),
      success: { title: "Message Sent!", description: "We'll get back to you within 24 hours." },
      fallback: FALLBACK,
      failureToast: "Error",
    },
  );
  const sending = send.busy;
  const set = <K extends keyof Form>(key: K) => (value: Form[K]) => setForm((f) => ({ ...f, [key]: value }));

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (sending) return;
    const name = form.name.trim();
    const email = form.email.trim();
    const subject = form.subject.trim();
    const message = form.message.trim();
    if (!name || !email || !subject || !message) {
      toast({ title: "Error", description: "Please fill in all required fields", variant: "destructive" });
      return;
    }
    await send.run({
      name,
      email,
      company: form.company.trim() || null,
      phone: form.phone.trim() || null,
      subject,
      priority: form.priority,
      message,
    });
  };

  return (
    <>
      <PageIntro eyebrow="Contact" title="We're here to help">
        <p>Questions about setup, sending or your plan? Reach the smsdesk team the way that suits you.</p>
      </PageIntro>

      <div className="mx-auto max-w-6xl px-4 py-16">
        <section aria-labelledby="channels">
          <h2 id="channels" className="sr-only">
            Ways to reach us
          </h2>
          <div className="grid gap-6 md:grid-cols-3">
            {CHANNELS.map((c) => (
              <Card key={c.title} className="p-6">
                <IconBadge icon={c.icon} />
                <h3 className="mt-4 font-semibold text-slate-900">{c.title}</h3>
                <p className="mt-1 text-sm font-medium text-brand-700">{c.detail}</p>
                <p className="mt-2 text-sm leading-relaxed text-slate-600">{c.text}</p>
              </Card>
            ))}
          </div>
        </section>

        <div className="mt-16 grid gap-10 lg:grid-cols-3">
          <div className="space-y-8 lg:col-span-1">
            <section aria-labelledby="topics">
              <h2 id="topics" className="text-lg font-semibold text-slate-900">
                What can we help with?
              </h2>
              <p className="mt-1 text-sm text-slate-600">Pick a topic to fill in the subject for you.</p>
              <ul className="mt-4 space-y-2">
                {TOPICS.map((t) => (
                  <li key={t.subject}>
                    <button
                      type="button"
                      onClick={() => set("subject")(t.subject)}
                      className={cx(
                        "w-full rounded-lg border px-3 py-2 text-left text-sm transition-colors focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500",
                        form.subject === t.subject
                          ? "border-brand-500 bg-brand-50 text-brand-700"
                          : "border-slate-200 bg-white text-slate-700 hover:border-brand-500 hover:bg-brand-50",
                      )}
                    >
                      {t.label}
                    </button>
                  </li>
                ))}
              </ul>
              <p className="mt-4 text-sm text-slate-600">
                Looking for a quick answer? Try the{" "}
                <Link to="/help" className="font-medium text-brand-700 hover:underline">
                  Help Center
                </Link>
                .
              </p>
            </section>

            <section aria-labelledby="hours" className="rounded-2xl bg-slate-50 p-6">
              <h2 id="hours" className="text-lg font-semibold text-slate-900">
                Location and hours
              </h2>
              <dl className="mt-4 space-y-3 text-sm">
                <div>
                  <dt className="font-medium text-slate-900">Support hours</dt>
                  <dd className="text-slate-600">Monday to Friday, 9 AM to 6 PM EST</dd>
                </div>
                <div>
                  <dt className="font-medium text-slate-900">Time zone</dt>
                  <dd className="text-slate-600">Our support team works on US Eastern Time.</dd>
                </div>
                <div>
                  <dt className="font-medium text-slate-900">Outside business hours</dt>
                  <dd className="text-slate-600">
                    Send the form any time. Messages that arrive in the evening or at the weekend are answered on the next
                    business day.
                  </dd>
                </div>
              </dl>
            </section>
          </div>

          <div className="lg:col-span-2">
            <Card className="p-6 sm:p-8">
              <h2 className="text-xl font-semibold text-slate-900">
                Send us a message
              </h2>
              <p className="mt-1 text-sm text-slate-600">Fields marked * are required.</p>
              <form onSubmit={submit} className="mt-6 space-y-5">
                <div className="grid gap-5 sm:grid-cols-2">
                  <Field label="Name *" htmlFor="contact-name">
                    <Input
                      id="contact-name"
                      name="name"
                      maxLength={200}
                      autoComplete="name"
                      aria-required="true"
                      value={form.name}
                      onChange={(e) => set("name")(e.target.value)}
                    />
                  </Field>
                  <Field label="Email *" htmlFor="contact-email">
                    <Input
                      id="contact-email"
                      name="email"
                      maxLength={254}
                      type="email"
                      autoComplete="email"
                      aria-required="true"
                      value={form.email}
                      onChange={(e) => set("email")(e.target.value)}
                    />
                  </Field>
                  <Field label="Company" htmlFor="contact-company">
                    <Input
                      id="contact-company"
                      name="company"
                      maxLength={200}
                      autoComplete="organization"
                      value={form.company}
                      onChange={(e) => set("company")(e.target.value)}
                    />
                  </Field>
                  <Field label="Phone" htmlFor="contact-phone">
                    <Input
                      id="contact-phone"
                      name="phone"
                      maxLength={40}
                      type="tel"
                      autoComplete="tel"
                      value={form.phone}
                      onChange={(e) => set("phone")(e.target.value)}
                    />
                  </Field>
                </div>
                <div className="grid gap-5 sm:grid-cols-3">
                  <div className="sm:col-span-2">
                    <Field label="Subject *" htmlFor="contact-subject">
                      <Input
                        id="contact-subject"
                        name="subject"
                        maxLength={300}
                        aria-required="true"
                        value={form.subject}
                        onChange={(e) => set("subject")(e.target.value)}
                      />
                    </Field>
                  </div>
                  <Field label="Priority" htmlFor="contact-priority">
                    <Select
                      id="contact-priority"
                      name="priority"
                      value={form.priority}
                      onChange={(e) => set("priority")(e.target.value as Priority)}
                    >
                      <option value="low">Low</option>
                      <option value="normal">Normal</option>
                      <option value="high">High</option>
                      <option value="critical">Critical</option>
                    </Select>
                  </Field>
                </div>
                <Field label="Message *" htmlFor="contact-message">
                  <textarea
                    id="contact-message"
                    name="message"
                    maxLength={10000}
                    rows={6}
                    aria-required="true"
                    value={form.message}
                    onChange={(e) => set("message")(e.target.value)}
                    placeholder="Tell us what you need, and include any error messages you see."
                    className="w-full rounded-lg border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm placeholder:text-slate-400 focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
                  />
                </Field>
                <div className="flex flex-col-reverse items-start gap-3 sm:flex-row sm:items-center sm:justify-between">
                  <p className="text-xs text-slate-500">
                    We use your details only to answer this message. See our{" "}
                    <Link to="/privacy" className="text-brand-700 hover:underline">
                      Privacy Policy
                    </Link>
                    .
                  </p>
                  <Button type="submit" disabled={sending} className="w-full sm:w-auto">
                    {sending && <Spinner />}
                    {sending ? "Sending..." : "Send Message"}
                  </Button>
                </div>
              </form>
            </Card>
          </div>
        </div>
      </div>
    </>
  );
}

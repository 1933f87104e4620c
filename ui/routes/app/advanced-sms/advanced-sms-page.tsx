import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { createCampaign, sendCampaign, type SendResult } from "../../../api/campaigns";
import { useSegments } from "../../../api/segments";
import { setSegmentPrice, useSegmentPrices } from "../../../api/results";
import { TabPanel, Tabs } from "../../../components/tabs";
import { Alert, Button, Card, Field, Input, Select, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { DeliveryNote, MessagePreview, startedDescription, useDeliveryPreview } from "../campaigns/delivery-preview";
import { zonedInputToIso, type Audience } from "../campaigns/model";
import { SegmentCounter } from "../campaigns/segment-counter";
import { SenderSelect, useOptOutDefault, useSenders } from "../campaigns/senders";
import { MergeFieldInserter } from "../templates/merge-fields";
import { TemplatePicker } from "../templates/template-picker";

const MAX_CONTENT = 1600;
type Target = "numbers" | "segment";
const TARGETS = [
  { value: "numbers" as const, label: "Numbers" },
  { value: "segment" as const, label: "Segment" },
];

/** Numbers as typed: one or many, separated by commas, semicolons or new lines. */
const splitNumbers = (text: string) =>
  text
    .split(/[,;\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/** "$0.0079" from millionths of a dollar: as many places as needed, at least two. */
function dollars(micros: number): string {
  const [whole, fraction = ""] = (micros / 1_000_000).toFixed(6).replace(/0+$/, "").split(".");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

/**
 * /advanced-sms: the composer for a power user, built on the campaign API (each send is a campaign with a manual or
 * segment audience, so it is paced, retried, recorded and shown in Sent Messages like any other): the sender, one or
 * many numbers or a segment, templates and merge fields, encoding and segments of the longest message the audience
 * will get, the cost at the sender's provider account's price per segment, and send now or at a time.
 */
export function AdvancedSmsPage() {
  useSignals();
  const user = auth.value.user!;
  const senders = useSenders();
  const segments = useSegments();
  const optOutDefault = useOptOutDefault();

  const [fromNumber, setFromNumber] = useState("");
  const [target, setTarget] = useState<Target>("numbers");
  const [numbers, setNumbers] = useState("");
  const [segmentId, setSegmentId] = useState("");
  const [content, setContent] = useState("");
  const [appendOptOut, setAppendOptOut] = useState(true);
  // A one-off the recipient expects (an order update, an appointment): quiet hours do not hold it.
  const [transactional, setTransactional] = useState(false);
  const [when, setWhen] = useState<"now" | "later">("now");
  const [scheduleAt, setScheduleAt] = useState("");
  const [result, setResult] = useState<string | null>(null);

  useEffect(() => {
    if (senders.defaultNumber) setFromNumber((f) => f || senders.defaultNumber);
  }, [senders.defaultNumber]);
  useEffect(() => {
    if (optOutDefault !== null) setAppendOptOut(optOutDefault);
  }, [optOutDefault]);

  const list = splitNumbers(numbers);
  const audience: Audience | null =
    target === "segment" ? (segmentId ? { kind: "segment", segmentId } : null) : list.length ? { kind: "manual" } : null;
  const scheduledAt = when === "later" ? zonedInputToIso(scheduleAt, user.timezone) : null;
  // Only numbers typed in can be transactional: a segment is marketing.
  const isTransactional = target === "numbers" && transactional;
  const delivery = useDeliveryPreview(
    audience && content.trim()
      ? { audience, recipients: target === "numbers" ? list : [], content, appendOptOut, scheduledAt, transactional: isTransactional }
      : null,
  );
  const longest = delivery.data?.longest;

  const missing = !fromNumber
    ? "Choose the number to send from."
    : !audience
      ? target === "segment"
        ? "Choose a segment."
        : "Enter at least one phone number."
      : !content.trim()
        ? "Write your message."
        : when === "later" && !scheduledAt
          ? "Choose when to send."
          : when === "later" && scheduledAt && Date.parse(scheduledAt) <= Date.now()
            ? "Choose a time in the future."
            : null;

  const send = useMutation(
    async (audience: Audience) => {
      setResult(null);
      const stamp = new Intl.DateTimeFormat(user.locale, { dateStyle: "medium", timeStyle: "short", timeZone: user.timezone }).format(new Date());
      const created = await createCampaign({
        name: `Advanced SMS · ${stamp}`,
        type: "sms",
        content,
        fromNumber,
        audience,
        recipients: target === "numbers" ? list : [],
        appendOptOut,
        transactional: isTransactional,
      });
      if (!created.id) throw new Error("Failed to get campaign ID from response");
      const sent: SendResult = await sendCampaign(created.id, scheduledAt);
      return sent.campaign.status === "scheduled"
        ? {
            title: "Message scheduled",
            text: `Scheduled for ${new Intl.DateTimeFormat(user.locale, { dateStyle: "medium", timeStyle: "short", timeZone: user.timezone }).format(new Date(scheduledAt!))}.`,
          }
        : { title: "Message sent", text: startedDescription(sent, delivery.data) };
    },
    {
      onSuccess: ({ text }) => {
        setResult(text);
        setContent("");
      },
      success: ({ title, text }) => ({ title, description: text }),
      fallback: "Could not send the message",
    },
  );
  const { busy: sending, error, setError } = send;
  const submit = submitWith(() => (missing || !audience ? setError(missing) : send.run(audience)));

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold text-slate-900">Advanced SMS</h1>
        <p className="text-sm text-slate-600">
          Write one message to one number, many numbers or a segment, with merge fields, and see its segments and cost before it goes.
        </p>
      </div>

      <form className="grid gap-6 lg:grid-cols-[3fr_2fr]" onSubmit={(e) => void submit(e)}>
        <Card className="space-y-5 p-5">
          <Field label="Send from" htmlFor="adv-from">
            <SenderSelect id="adv-from" senders={senders} value={fromNumber} onChange={setFromNumber} />
          </Field>

          <div className="space-y-2">
            <p className="text-sm font-medium text-slate-700">To</p>
            <Tabs tabs={TARGETS} value={target} onChange={setTarget} idPrefix="adv-to" label="Recipients" variant="pill" />
            <TabPanel idPrefix="adv-to" value={target}>
              {target === "numbers" ? (
                <Field label="Phone numbers" htmlFor="adv-numbers" hint="One or many, separated by commas or new lines.">
                  <textarea
                    id="adv-numbers"
                    rows={3}
                    value={numbers}
                    onChange={(e) => setNumbers(e.target.value)}
                    placeholder="+1 415 555 0100"
                    className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
                  />
                </Field>
              ) : (
                <Field label="Segment" htmlFor="adv-segment">
                  {segments.error && <Alert>{errorMessage(segments.error, "Could not load your segments")}</Alert>}
                  <Select id="adv-segment" value={segmentId} onChange={(e) => setSegmentId(e.target.value)}>
                    <option value="">Choose a segment…</option>
                    {segments.data?.data.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                  </Select>
                  {segments.data?.data.length === 0 && <p className="text-xs text-slate-500">You have no segments yet; create one on the Segments page.</p>}
                </Field>
              )}
            </TabPanel>
          </div>

          <Field label="Message" htmlFor="adv-content">
            <div className="flex flex-wrap items-center gap-2">
              <TemplatePicker onPick={(t) => setContent(t.content.slice(0, MAX_CONTENT))} />
              <MergeFieldInserter idPrefix="adv" onInsert={(token) => setContent((c) => `${c}${token}`.slice(0, MAX_CONTENT))} />
            </div>
            <textarea
              id="adv-content"
              rows={6}
              maxLength={MAX_CONTENT}
              value={content}
              onChange={(e) => setContent(e.target.value)}
              className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
            />
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" checked={appendOptOut} onChange={(e) => setAppendOptOut(e.target.checked)} />
              Add the opt-out line “Reply STOP to opt out”
            </label>
          </Field>

          {target === "numbers" && (
            <label className="flex items-start gap-2 text-sm text-slate-700">
              <input type="checkbox" className="mt-1" checked={transactional} onChange={(e) => setTransactional(e.target.checked)} />
              <span>
                <span className="font-medium">Transactional message</span>
                <span className="block text-xs text-slate-500">
                  An order update, a reminder of an appointment, a code: something the recipient expects. It goes out at any hour;
                  quiet hours hold marketing only. Never use it for promotions.
                </span>
              </span>
            </label>
          )}

          <fieldset className="space-y-2">
            <legend className="text-sm font-medium text-slate-700">When</legend>
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" name="adv-when" checked={when === "now"} onChange={() => setWhen("now")} /> Send now
            </label>
            <label className="flex items-center gap-2 text-sm">
              <input type="radio" name="adv-when" checked={when === "later"} onChange={() => setWhen("later")} /> Schedule
            </label>
            {when === "later" && (
              <Input
                type="datetime-local"
                aria-label={`Send at (${user.timezone})`}
                value={scheduleAt}
                onChange={(e) => setScheduleAt(e.target.value)}
              />
            )}
          </fieldset>

          {error && <Alert>{error}</Alert>}
          {result && <Alert tone="success">{result}</Alert>}
          <div className="flex items-center gap-3">
            <Button type="submit" disabled={sending || !!missing}>
              {sending ? <Spinner /> : when === "later" ? "Schedule" : "Send"}
            </Button>
            {missing && <span className="text-xs text-slate-500">{missing}</span>}
          </div>
        </Card>

        <div className="space-y-4">
          <Card className="space-y-3 p-5">
            <h2 className="font-semibold text-slate-900">Encoding and segments</h2>
            <SegmentCounter content={content} appendOptOut={appendOptOut} longest={longest} />
            {content.trim() && audience && (
              <>
                <MessagePreview preview={delivery.data} draft={content} testId="adv-preview" />
                <DeliveryNote
                  preview={delivery.data}
                  loading={delivery.loading}
                  error={delivery.error}
                  locale={user.locale}
                  scheduled={when === "later"}
                  transactional={isTransactional}
                />
              </>
            )}
          </Card>
          <CostEstimate
            totalSegments={longest?.totalSegments ?? null}
            recipients={delivery.data?.total ?? null}
            providerId={senders.numbers.find((n) => n.phoneNumber === (fromNumber || senders.defaultNumber))?.providerId ?? null}
            locale={user.locale}
          />
        </div>
      </form>
    </div>
  );
}

/**
 * The cost: segments of every message the audience will get times the price per segment of the sending number's
 * provider account (the default number's until one is chosen). It is the same price the campaign estimates and the
 * dashboards' spend use: editing it here edits that account's price, and until the user sets one the provider's
 * usual price stands in, said to be a default.
 */
function CostEstimate({
  totalSegments,
  recipients,
  providerId,
  locale,
}: {
  totalSegments: number | null;
  recipients: number | null;
  providerId: string | null;
  locale: string;
}) {
  const prices = useSegmentPrices();
  const account = prices.data?.data.find((p) => p.providerId === providerId) ?? null;
  const custom = account?.customPriceMicros ?? null;
  const [price, setPrice] = useState("");
  const saving = useMutation(
    async (providerId: string, value: number | null) => {
      await setSegmentPrice(providerId, value);
      await prices.reload();
    },
    { fallback: "Could not save the price" },
  );
  const { error, setError } = saving;
  useEffect(() => setPrice(custom === null ? "" : String(custom / 1_000_000)), [custom, providerId]);

  const save = async (value: number | null) => {
    if (!account) return;
    // The server's bound: no segment costs more than a dollar, so a few zeros too many are a typo.
    if (value !== null && (!Number.isFinite(value) || value < 0 || value > 1_000_000)) return setError("Enter a price from 0 to 1 dollar, like 0.0079");
    return saving.run(account.providerId, value);
  };

  return (
    <Card className="space-y-3 p-5">
      <h2 className="font-semibold text-slate-900">Cost estimate</h2>
      {prices.error ? (
        <Alert>{errorMessage(prices.error, "Could not load your prices")}</Alert>
      ) : prices.loading && !prices.data ? (
        <Spinner className="text-slate-400" />
      ) : !account ? (
        <p className="text-sm text-slate-500">Choose the number to send from to see its price per segment.</p>
      ) : (
        <>
          <div className="flex items-end gap-2">
            <Field label="Price per segment (USD)" htmlFor="adv-price" hint={`For ${account.displayName} (${account.provider}), the provider account of this number.`}>
              <Input
                id="adv-price"
                inputMode="decimal"
                placeholder={String(account.defaultPriceMicros / 1_000_000)}
                value={price}
                onChange={(e) => setPrice(e.target.value)}
              />
            </Field>
            <Button variant="secondary" disabled={saving.busy} onClick={() => void save(price.trim() === "" ? null : Math.round(Number(price) * 1_000_000))}>
              {saving.busy ? <Spinner /> : "Save price"}
            </Button>
            {custom !== null && (
              <Button variant="ghost" disabled={saving.busy} onClick={() => void save(null)}>
                Use default
              </Button>
            )}
          </div>
          <p className="text-xs text-slate-500" data-testid="price-source">
            {custom === null
              ? `Using the default, ${dollars(account.defaultPriceMicros)}: ${account.provider === "simulator" ? "the simulator sends nothing and costs nothing" : "the provider's usual US price; enter what your invoice says"}.`
              : `Your price for this provider account, also used by campaigns and Results & Stats. The default would be ${dollars(account.defaultPriceMicros)}.`}
          </p>
        </>
      )}
      {error && <Alert>{error}</Alert>}
      {totalSegments === null ? (
        <p className="text-sm text-slate-500">Choose recipients and write a message to see the segments they come to.</p>
      ) : (
        <p className="text-sm text-slate-700" data-testid="cost-estimate">
          {formatNumber(recipients ?? 0, locale)} {recipients === 1 ? "message" : "messages"}, {formatNumber(totalSegments, locale)}{" "}
          {totalSegments === 1 ? "segment" : "segments"}
          {account && (
            <>
              {" "}× {dollars(account.priceMicros)} = <strong>{dollars(totalSegments * account.priceMicros)}</strong>
              {custom === null && <span className="text-slate-500"> (default price)</span>}
            </>
          )}
        </p>
      )}
    </Card>
  );
}

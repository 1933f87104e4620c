/**
 * Cards, comparisons and prices shared by the results dashboard and the advanced home (no chart library here: the
 * homes load without it).
 */
import { useEffect, useState, type ReactNode } from "react";
import { Alert, Button, Card, Input, Spinner, cx } from "../../../components/ui";
import { setMmsPrice, setSegmentPrice, useSegmentPrices, type Figures, type Overview, type SegmentPrice } from "../../../api/results";
import { formatNumber } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";

/** Millionths of a dollar as dollars: cents for sums, more places for a price per segment. */
export function dollars(micros: number, locale: string, perSegment = false) {
  return new Intl.NumberFormat(locale, {
    style: "currency",
    currency: "USD",
    minimumFractionDigits: 2,
    maximumFractionDigits: perSegment ? 4 : 2,
  }).format(micros / 1_000_000);
}

/** A rate to one decimal, or a dash when there was nothing to divide by. */
export const rate = (value: number | null) => (value === null ? "—" : `${value}%`);

/**
 * "+12.5% vs last week", green up and red down (for opt-outs and spend, up is not good news), or "— vs last week"
 * when the earlier period had nothing to compare with. Rates change in points.
 */
export function Change({ value, against, points, upIsBad }: { value: number | null; against: string; points?: boolean; upIsBad?: boolean }) {
  if (value === null) {
    return (
      <span className="text-xs text-slate-500" data-testid="change">
        — vs {against}
      </span>
    );
  }
  const good = value === 0 ? null : value > 0 !== !!upIsBad;
  const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
  return (
    <span className={cx("text-xs font-medium", good === null ? "text-slate-500" : good ? "text-green-700" : "text-red-700")} data-testid="change">
      {sign}
      {Math.abs(value)}
      {points ? " pts" : "%"} vs {against}
    </span>
  );
}

export function StatCard({ label, value, hint, children, testId }: { label: string; value: ReactNode; hint?: string; children?: ReactNode; testId?: string }) {
  return (
    <Card className="p-4">
      <p className="text-sm text-slate-500">{label}</p>
      <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid={testId ?? `stat-${label}`}>
        {value}
      </p>
      {hint && <p className="text-xs text-slate-500">{hint}</p>}
      {children && <div className="mt-1">{children}</div>}
    </Card>
  );
}

/** A card that loads: its skeleton until the figures come. */
export function StatSkeleton() {
  return (
    <Card className="p-4">
      <div className="h-4 w-24 animate-pulse rounded bg-slate-100" />
      <div className="mt-2 h-7 w-16 animate-pulse rounded bg-slate-100" />
    </Card>
  );
}

/** A figures table's head: the row label's column on the left, the figures' columns on the right. */
function FiguresHead({ first, figures }: { first: string; figures: string[] }) {
  return (
    <thead className="text-xs uppercase text-slate-500">
      <tr>
        <th scope="col" className="py-1 text-left font-medium">
          {first}
        </th>
        {figures.map((name) => (
          <th key={name} scope="col" className="py-1 text-right font-medium">
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Spend of the last six months, the current one so far, each text at the price (per segment, per MMS) it was sent at. */
export function SpendByMonth({ months, locale }: { months: Overview["months"]; locale: string }) {
  const label = (m: string) => new Intl.DateTimeFormat(locale, { month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(`${m}-01T00:00:00Z`));
  return (
    <table className="w-full text-sm" data-testid="spend-by-month">
      <caption className="sr-only">Spend per month</caption>
      <FiguresHead first="Month" figures={["Sent", "Segments", "MMS", "Spend"]} />
      <tbody className="divide-y divide-slate-100">
        {[...months].reverse().map((m) => (
          <tr key={m.month}>
            <th scope="row" className="py-1.5 text-left font-normal text-slate-700">
              {label(m.month)}
            </th>
            <td className="py-1.5 text-right tabular-nums">{formatNumber(m.sent, locale)}</td>
            <td className="py-1.5 text-right tabular-nums">{formatNumber(m.segments, locale)}</td>
            <td className="py-1.5 text-right tabular-nums">{formatNumber(m.mmsSent, locale)}</td>
            <td className="py-1.5 text-right font-medium tabular-nums">{dollars(m.spendMicros, locale)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A period's SMS and MMS apart: what went out, was delivered and cost of each (an MMS is a message with a picture or
 * file, one message at its account's price per MMS).
 */
export function SmsAndMms({ figures, locale }: { figures: Pick<Figures, "sms" | "mms">; locale: string }) {
  const rows = [
    ["SMS", figures.sms],
    ["MMS", figures.mms],
  ] as const;
  return (
    <table className="w-full text-sm" data-testid="sms-and-mms">
      <caption className="sr-only">SMS and MMS</caption>
      <FiguresHead first="Kind" figures={["Sent", "Delivered", "Spend"]} />
      <tbody className="divide-y divide-slate-100">
        {rows.map(([kind, f]) => (
          <tr key={kind} data-testid={`kind-${kind}`}>
            <th scope="row" className="py-1.5 text-left font-normal text-slate-700">
              {kind}
            </th>
            <td className="py-1.5 text-right tabular-nums">{formatNumber(f.sent, locale)}</td>
            <td className="py-1.5 text-right tabular-nums">{formatNumber(f.delivered, locale)}</td>
            <td className="py-1.5 text-right font-medium tabular-nums">{dollars(f.spendMicros, locale)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The price per segment (or, with kind "mms", per MMS) of each provider account: the user's own, or the provider's
 * usual price shown as a default. Estimates use it, and each text sent records it (past spend keeps the price it
 * went at). A provider that sends no MMS says so in place of an MMS price.
 */
export function SegmentPrices({ locale, onSaved, kind = "segment" }: { locale: string; onSaved?: () => void; kind?: PriceKind }) {
  const prices = useSegmentPrices();
  if (prices.loading && !prices.data) return <Spinner className="text-slate-400" />;
  if (prices.error) return <Alert>Could not load your prices: {prices.error.message}</Alert>;
  const list = prices.data?.data ?? [];
  if (!list.length) return <p className="text-sm text-slate-500">Connect an SMS provider under Phone Settings to price your messages.</p>;
  return (
    <ul className="space-y-3">
      {list.map((p) => (
        <PriceRow
          key={p.providerId}
          kind={kind}
          price={p}
          locale={locale}
          onSaved={() => {
            void prices.reload();
            onSaved?.();
          }}
        />
      ))}
    </ul>
  );
}

type PriceKind = "segment" | "mms";

/** What a row edits: the account's own price, the default, how it is saved and what it is per. */
function priceOf(price: SegmentPrice, kind: PriceKind) {
  return kind === "segment"
    ? { custom: price.customPriceMicros, fallback: price.defaultPriceMicros as number | null, set: setSegmentPrice, per: "segment" }
    : { custom: price.customMmsPriceMicros, fallback: price.defaultMmsPriceMicros, set: setMmsPrice, per: "MMS" };
}

function PriceRow({ price, locale, onSaved, kind }: { price: SegmentPrice; locale: string; onSaved: () => void; kind: PriceKind }) {
  const { custom, fallback, set, per } = priceOf(price, kind);
  const [text, setText] = useState("");
  const save = useMutation((value: number | null) => set(price.providerId, value), {
    onSuccess: onSaved,
    success: (_, value) => ({
      title: "Price saved",
      description: `${price.displayName}: ${value === null ? "the default price" : dollars(value, locale, true)} per ${per}`,
    }),
    fallback: "Could not save the price",
  });
  const { busy, error, setError } = save;
  useEffect(() => setText(custom === null ? "" : String(custom / 1_000_000)), [custom]);
  const id = `${kind}-price-${price.providerId}`;
  const name = (
    <>
      {price.displayName} <span className="font-normal text-slate-500">({price.provider})</span>
    </>
  );
  // Brevo, TextMagic and ClickSend send text only (shared/providers/mms.ts): no MMS price to set.
  if (fallback === null) {
    return (
      <li className="space-y-1" data-testid={id}>
        <p className="text-sm font-medium text-slate-700">{name}</p>
        <p className="text-xs text-slate-500">Sends no MMS: pictures and files go from a Twilio or Telnyx number.</p>
      </li>
    );
  }

  const submit = (value: number | null) => {
    if (value !== null && (!Number.isFinite(value) || value < 0 || value > 1_000_000)) {
      return setError(`Enter a price from 0 to 1 dollar, like ${kind === "segment" ? "0.0079" : "0.02"}`);
    }
    void save.run(value);
  };

  return (
    <li className="space-y-1">
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {kind === "mms" && <span className="sr-only">Price per MMS, </span>}
        {name}
      </label>
      <form
        className="flex flex-wrap items-center gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          submit(text.trim() === "" ? null : Math.round(Number(text) * 1_000_000));
        }}
      >
        <span className="text-sm text-slate-500">$</span>
        <Input id={id} inputMode="decimal" className="!w-28" placeholder={String(fallback / 1_000_000)} value={text} onChange={(e) => setText(e.target.value)} />
        <span className="text-sm text-slate-500">per {per}</span>
        <Button type="submit" variant="secondary" disabled={busy}>
          {busy ? <Spinner /> : "Save"}
        </Button>
        {custom !== null && (
          <Button variant="ghost" disabled={busy} onClick={() => submit(null)}>
            Use default
          </Button>
        )}
      </form>
      <p className="text-xs text-slate-500" data-testid={`${id}-source`}>
        {custom === null
          ? `Using the default, ${dollars(fallback, locale, true)}: ${price.provider === "simulator" ? "the simulator sends nothing and costs nothing" : "the provider's usual US price; enter what your invoice says"}.`
          : `Your price. The default would be ${dollars(fallback, locale, true)}.`}
      </p>
      {error && <Alert>{error}</Alert>}
    </li>
  );
}

import { useEffect, useState } from "react";
import { Spinner } from "../../../components/ui";
import { previewDelivery, type DeliveryPreview } from "../../../api/campaigns";
import { errorMessage } from "../../../lib/api";
import { formatNumber } from "../../../lib/format";
import { describeSend, type Audience, type Campaign, type QuietWait, type SendResult } from "./model";

export type { DeliveryPreview };

export type DeliveryQuestion = {
  audience: Audience;
  recipients: string[];
  content?: string;
  appendOptOut?: boolean;
  scheduledAt?: string | null;
  /** A transactional one-off (typed numbers): quiet hours do not hold it. */
  transactional?: boolean;
  /** The sender chosen (the default number when empty), for the registration warning. */
  fromNumber?: string | null;
  /** Links go out as short links (the default): measured at that length (issue 32). */
  shortenLinks?: boolean;
  /** Attachments it carries: with any, one MMS per recipient (and the sender's refusal, if it sends none). */
  attachments?: number;
  /** An A/B test's texts (the first is `content`) and test share: each variant counted at its own length. */
  abTest?: { variants: string[]; testPercent: number } | null;
};

const DEBOUNCE_MS = 300;

/** Asks the server what sending `question` would do, again whenever it changes (after a short pause in typing). */
export function useDeliveryPreview(question: DeliveryQuestion | null) {
  const key = question ? JSON.stringify(question) : null;
  const [state, setState] = useState<{ key: string | null; data: DeliveryPreview | null; error: string | null }>({
    key: null,
    data: null,
    error: null,
  });
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      previewDelivery(JSON.parse(key), controller.signal)
        .then((data) => setState({ key, data, error: null }))
        .catch((err) => {
          if (!controller.signal.aborted)
            setState((s) => ({ key, data: s.data, error: errorMessage(err, "Could not check the delivery") }));
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [key]);
  return {
    data: key === null ? null : state.data,
    error: key === null ? null : state.error,
    loading: key !== null && state.key !== key,
  };
}

const plural = (n: number, one: string, many: string, locale: string) => `${formatNumber(n, locale)} ${n === 1 ? one : many}`;

/** "3 recipients. 2 of them are in quiet hours now: they get it at 8:00 AM, their time." */
export function DeliveryNote({
  preview,
  loading,
  error,
  locale,
  scheduled,
  transactional = false,
}: {
  preview: DeliveryPreview | null;
  loading: boolean;
  error: string | null;
  locale: string;
  scheduled: boolean;
  /** A transactional one-off: quiet hours do not hold it, whatever the recipients' hour. */
  transactional?: boolean;
}) {
  if (error) return <p className="text-sm text-red-600">{error}</p>;
  if (!preview) return loading ? <Spinner className="text-slate-300" /> : null;
  return (
    <>
      <RegistrationNote warning={preview.registration} />
      <QuietNote preview={preview} locale={locale} scheduled={scheduled} transactional={transactional} />
    </>
  );
}

/** Carriers will block the sender's texts to some recipients (issue 34): why, and what to do, before Send. */
export function RegistrationNote({ warning }: { warning: DeliveryPreview["registration"] }) {
  if (!warning) return null;
  return (
    <div role="alert" data-testid="registration-warning" className="mb-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
      <p className="font-medium">{warning.message}</p>
      {warning.reason && <p className="mt-1">Reason: {warning.reason}</p>}
      {warning.todo && <p className="mt-1">{warning.todo}</p>}
      <p className="mt-1 text-xs text-red-800">Sending anyway sends it; the carriers then refuse those messages. See Phone Settings, Registration.</p>
    </div>
  );
}

function QuietNote({ preview, locale, scheduled, transactional }: { preview: DeliveryPreview; locale: string; scheduled: boolean; transactional: boolean }) {
  const { total, inQuietHours, resumesAt } = preview;
  const when = scheduled ? "at that time" : "now";
  if (transactional && total > 0) {
    return (
      <p data-testid="delivery-note" aria-live="polite" className="text-sm text-slate-600">
        {plural(total, "recipient", "recipients", locale)}: transactional, so quiet hours do not hold it; it goes out{" "}
        {scheduled ? "at the time you chose" : "right away"}, whatever the hour where they are.
      </p>
    );
  }
  const who =
    inQuietHours === total
      ? total === 1
        ? "The recipient is"
        : `All ${plural(total, "recipient", "recipients", locale)} are`
      : `${formatNumber(inQuietHours, locale)} of ${plural(total, "recipient", "recipients", locale)} ${inQuietHours === 1 ? "is" : "are"}`;
  return (
    <div data-testid="delivery-note" aria-live="polite" className="text-sm">
      {inQuietHours > 0 ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-amber-900">
          <strong>
            {who} in quiet hours {when}.
          </strong>{" "}
          {inQuietHours < total ? "Those get" : "They get"} it at {resumesAt} (recipient's time)
          {inQuietHours < total ? `; the others ${scheduled ? "at the time you chose" : "right away"}.` : "."}
        </p>
      ) : (
        total > 0 && (
          <p className="text-slate-600">
            {plural(total, "recipient", "recipients", locale)}, none in quiet hours {when}: it goes out{" "}
            {scheduled ? "at the time you chose" : "right away"}.
          </p>
        )
      )}
    </div>
  );
}

/** The message bubble: the server's text for the first recipient, or the draft as typed while it loads. */
export function MessagePreview({ preview, draft, testId }: { preview: DeliveryPreview | null; draft: string; testId?: string }) {
  const p = preview?.preview;
  return (
    <div>
      <div
        className="mt-1 max-w-sm rounded-2xl rounded-bl-sm bg-slate-100 px-4 py-3 text-sm break-words whitespace-pre-wrap"
        data-testid={testId}
      >
        {p ? p.text : draft}
      </div>
      {p?.recipient && <p className="mt-1 text-xs text-slate-500">As {p.recipient} will read it.</p>}
    </div>
  );
}

/**
 * Messages the sender holds back until quiet hours end, or until a state's law lets them go (each recipient in the
 * details says which rule), on the card and in the details.
 */
export function QuietWaitNote({
  wait,
  locale,
  className,
}: {
  wait: QuietWait | null | undefined;
  locale: string;
  className?: string;
}) {
  if (!wait) return null;
  const n = plural(wait.count, "message", "messages", locale);
  return (
    <p data-testid="quiet-wait" className={className ?? "rounded-md bg-amber-50 px-2 py-1 text-xs text-amber-900"}>
      {wait.byLaw === wait.count
        ? `Waiting for state law (each recipient says which rule): ${n}`
        : `Waiting for quiet hours until ${wait.resumesAt} (recipient's time): ${n}` +
          (wait.byLaw ? `, ${formatNumber(wait.byLaw, locale)} of them held by state law` : "")}
    </p>
  );
}

/** Every message still to go is held for quiet hours: the campaign is waiting, not sending. */
export const isWaitingOnly = (c: Campaign) =>
  c.status === "sending" && !!c.quietWait && c.counts.sending === 0 && c.quietWait.count === c.counts.pending;

/** "3 messages queued. 2 wait for quiet hours until 8:00 AM (recipient's time)." */
export function startedDescription(
  result: Pick<SendResult, "queued" | "skipped" | "notice"> & { campaign?: { writingOutbox?: boolean } },
  delivery: DeliveryPreview | null,
): string {
  const waiting =
    delivery && delivery.inQuietHours > 0
      ? `${delivery.inQuietHours === result.queued ? "All wait" : `${delivery.inQuietHours} wait`} for quiet hours until ${delivery.resumesAt} (recipient's time)`
      : null;
  return [describeSend(result), waiting, result.notice].filter(Boolean).join(". ") + ".";
}

import { useEffect, useRef } from "react";
import { ChatMedia, type BubbleMedia } from "./chat-media";
import { cx } from "./ui";

/** What a bubble needs of a message (the API's message has more). */
export type BubbleMessage = {
  id: string;
  direction: "inbound" | "outbound";
  content: string;
  status: string;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  campaignId?: string | null;
  /** Held for quiet hours or a state's rule (`reason`) until `clock` on the recipient's clock ("8:00 AM"). */
  quietHold?: { until: string; clock: string; reason: string } | null;
  /** An MMS's pictures and files. */
  media?: BubbleMedia[];
};

/**
 * An outbound message's status line: a held message says until when, not "Pending", and a state's law that held it
 * is named (the account's own quiet hours write "Held: your quiet hours ...": src/sending/state-rules.ts).
 */
function statusOf(m: BubbleMessage) {
  const hold = m.quietHold;
  if (hold && / law /.test(hold.reason)) return { label: `${hold.reason}, until ${hold.clock} (recipient's time)`, className: "text-amber-700" };
  if (hold) return { label: `Waiting for quiet hours until ${hold.clock} (recipient's time)`, className: "text-amber-700" };
  return STATUS[m.status] ?? { label: m.status, className: "text-slate-500" };
}

/** An outbound text's delivery as the sender reads it; the failure reason is shown under a failed one. */
const STATUS: Record<string, { label: string; className: string }> = {
  queued: { label: "Pending", className: "text-slate-400" },
  sending: { label: "Sending…", className: "text-slate-400" },
  sent: { label: "Sent", className: "text-slate-500" },
  delivered: { label: "Delivered", className: "text-green-700" },
  failed: { label: "Failed", className: "text-red-700" },
  unknown: { label: "Unknown: the provider never confirmed it", className: "text-amber-700" },
  skipped: { label: "Not sent: the contact opted out", className: "text-red-700" },
  expired: { label: "Not sent: expired before it could go out", className: "text-red-700" },
  cancelled: { label: "Cancelled", className: "text-slate-500" },
};

function when(iso: string, timeZone?: string) {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return d.toLocaleString(undefined, {
    timeZone,
    hour: "numeric",
    minute: "2-digit",
    ...(today ? {} : { month: "short", day: "numeric" }),
  });
}

/**
 * The bubbles of a thread, oldest at the top (the server's order, never re-sorted by time): inbound on the left,
 * outbound on the right with its delivery status. Scrolls to the newest when one arrives.
 */
export function ChatBubbles({
  messages,
  timeZone,
  emptyText = "No messages yet",
  emptyHint = "Start the conversation below",
  older,
}: {
  messages: BubbleMessage[];
  timeZone?: string;
  emptyText?: string;
  emptyHint?: string;
  /** There is history before the first bubble: a button at the top loads it. */
  older?: { loading: boolean; load: () => void };
}) {
  const end = useRef<HTMLLIElement>(null);
  const last = messages.at(-1)?.id;
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [last]);
  if (messages.length === 0) {
    return (
      <div className="flex flex-1 flex-col items-center justify-center p-6 text-center text-sm text-slate-500">
        <p className="font-medium text-slate-700">{emptyText}</p>
        <p>{emptyHint}</p>
      </div>
    );
  }
  return (
    <ol className="flex-1 space-y-2 overflow-y-auto p-3" aria-label="Thread" data-testid="chat-messages">
      {older && (
        <li className="text-center">
          <button
            type="button"
            disabled={older.loading}
            onClick={older.load}
            className="rounded-full border border-slate-200 bg-white px-3 py-1 text-xs text-slate-600 hover:bg-slate-100 disabled:opacity-50"
          >
            {older.loading ? "Loading…" : "Load earlier messages"}
          </button>
        </li>
      )}
      {messages.map((m) => {
        const out = m.direction === "outbound";
        const status = out ? statusOf(m) : null;
        return (
          <li key={m.id} className={cx("flex", out ? "justify-end" : "justify-start")} data-direction={m.direction}>
            <div className="max-w-[80%]">
              {(m.content || !m.media?.length) && (
                <div
                  className={cx(
                    "whitespace-pre-wrap break-words rounded-2xl px-3 py-2 text-sm",
                    out ? "rounded-br-sm bg-brand-600 text-white" : "rounded-bl-sm border border-slate-200 bg-white text-slate-900",
                    m.status === "failed" && "bg-red-600",
                  )}
                >
                  {m.content}
                </div>
              )}
              <ChatMedia media={m.media ?? []} out={out} />
              <p className={cx("mt-0.5 text-[11px] text-slate-500", out && "text-right")}>
                {m.campaignId && <span>Campaign · </span>}
                <time dateTime={m.createdAt}>{when(m.createdAt, timeZone)}</time>
                {status && (
                  <span className={status.className} data-testid="delivery-status">
                    {" · "}
                    {status.label}
                  </span>
                )}
              </p>
              {out && (m.status === "failed" || m.status === "unknown") && (m.errorMessage || m.errorCode) && (
                <p className="text-right text-[11px] text-red-700" data-testid="failure-reason">
                  {m.errorMessage ?? ""}
                  {m.errorCode ? ` (${m.errorCode})` : ""}
                </p>
              )}
            </div>
          </li>
        );
      })}
      <li ref={end} aria-hidden />
    </ol>
  );
}

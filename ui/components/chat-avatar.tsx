import type { ConversationView } from "../api/conversations";
import { cx } from "./ui";

/** "AL" for Ada Lovelace; the last two digits for a number without a contact. */
export function initials(c: Pick<ConversationView, "contact" | "phone">): string {
  const first = c.contact?.firstName.trim()[0] ?? "";
  const last = c.contact?.lastName.trim()[0] ?? "";
  return (first + last).toUpperCase() || c.phone.replace(/\D/g, "").slice(-2);
}

export function ChatAvatar({
  conversation,
  className,
}: {
  conversation: Pick<ConversationView, "contact" | "phone">;
  className?: string;
}) {
  return (
    <span
      aria-hidden
      className={cx(
        "flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-brand-100 text-xs font-semibold text-brand-700",
        className,
      )}
    >
      {initials(conversation)}
    </span>
  );
}

/** A count as the pill shows it: "99+" above 99. */
export const countText = (count: number) => (count > 99 ? "99+" : String(count));

/** A count on a dark pill; nothing at zero. "99+" above 99. */
export function CountPill({ count, label, className }: { count: number; label: string; className?: string }) {
  if (count <= 0) return null;
  return (
    <span
      aria-label={`${countText(count)} ${label}`}
      className={cx(
        "min-w-5 rounded-full bg-red-600 px-1.5 text-center text-[11px] font-semibold leading-5 text-white",
        className,
      )}
    >
      {countText(count)}
    </span>
  );
}

/** A conversation in a list: initials, name, phone, unread count, and the last message or "No messages". */
export function ConversationSummary({ c, formatPhone }: { c: ConversationView; formatPhone: (p: string) => string }) {
  const named = c.contactName !== c.phone;
  return (
    <span className="flex min-w-0 flex-1 items-center gap-3">
      <ChatAvatar conversation={c} />
      <span className="min-w-0 flex-1">
        <span className="flex items-center gap-2">
          <span
            className={cx("truncate text-sm", c.unreadCount > 0 ? "font-semibold text-slate-900" : "font-medium text-slate-800")}
          >
            {named ? c.contactName : formatPhone(c.phone)}
          </span>
          <CountPill count={c.unreadCount} label="unread" className="ml-auto" />
        </span>
        {named && <span className="block truncate text-xs text-slate-500">{formatPhone(c.phone)}</span>}
        <span className={cx("block truncate text-xs", c.unreadCount > 0 ? "text-slate-800" : "text-slate-500")}>
          {c.lastMessage === null ? "No messages" : `${c.lastDirection === "outbound" ? "You: " : ""}${c.lastMessage}`}
        </span>
      </span>
    </span>
  );
}

import { useRef, useState, type KeyboardEvent } from "react";
import { measureSms } from "../routes/app/campaigns/model";
import { SegmentCounter } from "../routes/app/campaigns/segment-counter";
import { Button, Spinner, cx } from "./ui";

/** A chat reply may run to ten segments; above one the counter warns that it goes out as several texts. */
export const CHAT_MAX = 1600;

/**
 * The reply box: Enter sends, Shift+Enter starts a new line. Each draft carries one Idempotency-Key, made when the
 * draft starts and kept until the server has accepted it, so a double click, or a retry after a lost answer, sends
 * the text once.
 */
export function ChatComposer({
  onSend,
  disabled,
  disabledReason,
  compact = false,
  autoFocus = false,
}: {
  /** Resolves when the server accepted the text; throws to keep the draft for another try. */
  onSend: (content: string, idempotencyKey: string) => Promise<void>;
  disabled?: boolean;
  disabledReason?: string;
  /** The popup's narrow layout: the counter collapses to one line. */
  compact?: boolean;
  autoFocus?: boolean;
}) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const key = useRef<string | null>(null);
  const inFlight = useRef(false);
  const blank = text.trim() === "";
  const segments = measureSms(text, false).segments;

  const send = async () => {
    if (blank || inFlight.current || disabled) return;
    // A ref, not state: a second Enter in the same tick must see the first one's send.
    inFlight.current = true;
    setSending(true);
    key.current ??= crypto.randomUUID();
    try {
      await onSend(text.trim(), key.current);
      key.current = null;
      setText("");
    } catch {
      // The caller showed the error; the draft and its key stay, so Send again cannot make a second copy.
    } finally {
      inFlight.current = false;
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  };

  return (
    <div className="border-t border-slate-200 bg-white p-3">
      {disabled && disabledReason && <p className="mb-2 text-xs text-red-700">{disabledReason}</p>}
      <div className="flex items-end gap-2">
        <textarea
          aria-label="Your reply"
          placeholder="Type a message..."
          rows={compact ? 1 : 2}
          maxLength={CHAT_MAX}
          value={text}
          autoFocus={autoFocus}
          disabled={disabled}
          readOnly={sending}
          onChange={(e) => {
            setText(e.target.value);
            // Different text is a different message: it gets its own key.
            key.current = null;
          }}
          onKeyDown={onKeyDown}
          className="max-h-40 min-h-[2.5rem] flex-1 resize-y rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 disabled:bg-slate-100"
        />
        <Button onClick={() => void send()} disabled={blank || sending || disabled} aria-label="Send reply">
          {sending ? <Spinner /> : "Send"}
        </Button>
      </div>
      {text && (
        <div className={cx("mt-2", compact && "max-h-16 overflow-y-auto")}>
          <SegmentCounter content={text} appendOptOut={false} />
          <p className={cx("mt-1 text-xs", segments > 1 ? "text-amber-700" : "text-slate-500")} data-testid="chat-length">
            {text.length}/{CHAT_MAX}
            {segments > 1 && ` · Longer than one text: this reply is billed as ${segments} segments.`}
          </p>
        </div>
      )}
      {!text && !compact && <p className="mt-1 text-xs text-slate-400">Enter to send, Shift+Enter for a new line</p>}
    </div>
  );
}

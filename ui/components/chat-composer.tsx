import { useRef, useState, type KeyboardEvent } from "react";
import { ATTACH_ACCEPT, MAX_ATTACHMENTS, uploadMedia, type UploadedMedia } from "../api/media";
import { errorMessage } from "../lib/api";
import { useMutation } from "../lib/use-mutation";
import { measureSms } from "../routes/app/campaigns/model";
import { SegmentCounter } from "../routes/app/campaigns/segment-counter";
import { TemplatePicker } from "../routes/app/templates/template-picker";
import type { UsedTemplate } from "../api/templates";
import { IMAGE, sizeOf } from "./chat-media";
import { Icon } from "./icons";
import { Button, Spinner, cx } from "./ui";

/** A chat reply may run to ten segments; above one the counter warns that it goes out as several texts. */
export const CHAT_MAX = 1600;

/**
 * The reply box: Enter sends, Shift+Enter starts a new line. Each draft carries one Idempotency-Key, made when the
 * draft starts and kept until the server has accepted it, so a double click, or a retry after a lost answer, sends
 * the text once. Pictures and files are uploaded as soon as they are chosen (POST /api/media) and go with the reply
 * by id; a picture alone, with no text, is a message too. A template puts its text in the box and attaches copies of
 * its pictures and files.
 */
export function ChatComposer({
  onSend,
  disabled,
  disabledReason,
  compact = false,
  autoFocus = false,
}: {
  /** Resolves when the server accepted the text; throws to keep the draft for another try. */
  onSend: (content: string, idempotencyKey: string, mediaIds: string[]) => Promise<void>;
  disabled?: boolean;
  disabledReason?: string;
  /** The popup's narrow layout: the counter collapses to one line. */
  compact?: boolean;
  autoFocus?: boolean;
}) {
  const [text, setText] = useState("");
  const key = useRef<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);
  const [attached, setAttached] = useState<UploadedMedia[]>([]);
  const blank = text.trim() === "" && attached.length === 0;
  const segments = measureSms(text, false).segments;

  // One run uploads every file chosen, one after another, each shown as soon as it is stored; the failures are
  // reported together at the end with each file's name and the server's reason (415 type, 413 size).
  const upload = useMutation(
    async (files: File[], left: number) => {
      const failures: string[] = left ? [`A message carries at most ${MAX_ATTACHMENTS} pictures or files; ${left} not attached.`] : [];
      for (const file of files) {
        try {
          const media = await uploadMedia(file);
          setAttached((cur) => [...cur, media]);
          key.current = null;
        } catch (err) {
          failures.push(`${file.name}: ${errorMessage(err, "The file could not be uploaded")}`);
        }
      }
      if (failures.length) throw new Error(failures.join(" "));
    },
    { failureToast: (message) => ({ title: "File not attached", description: message, variant: "destructive" }) },
  );
  const room = MAX_ATTACHMENTS - attached.length;

  const choose = (list: FileList | null) => {
    const files = Array.from(list ?? []);
    if (!files.length) return;
    const taken = files.slice(0, Math.max(0, room));
    void upload.run(taken, files.length - taken.length);
  };

  // The template's text replaces the draft's; its attachments (copies made for this reply) join those already here.
  const applyTemplate = (t: UsedTemplate) => {
    setText(t.content.slice(0, CHAT_MAX));
    if (t.attachments.length) setAttached((cur) => [...cur, ...t.attachments.map((m) => ({ ...m, resizedFrom: null }))].slice(0, MAX_ATTACHMENTS));
    key.current = null;
  };

  const remove = (id: string) => {
    setAttached((cur) => cur.filter((m) => m.id !== id));
    // A different set of attachments is a different message: it gets its own key.
    key.current = null;
  };

  // The hook runs one send at a time (a second Enter in the same tick is ignored). A failure was shown by the caller;
  // the draft and its key stay, so Send again cannot make a second copy.
  const delivery = useMutation(
    () => {
      key.current ??= crypto.randomUUID();
      return onSend(text.trim(), key.current, attached.map((m) => m.id));
    },
    {
      onSuccess: () => {
        key.current = null;
        setText("");
        setAttached([]);
        upload.setError(null);
      },
    },
  );
  const sending = delivery.busy;
  const send = () => {
    if (blank || disabled || upload.busy) return;
    void delivery.run();
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
      {(attached.length > 0 || upload.busy) && (
        <ul className="mb-2 flex flex-wrap gap-2" aria-label="Attached to this reply" data-testid="composer-attachments">
          {attached.map((m) => (
            <li key={m.id} className="flex min-w-0 max-w-full items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 py-1 pl-1 pr-2 text-xs text-slate-700">
              {IMAGE.test(m.contentType) ? (
                <img src={m.url} alt={m.filename} className="h-10 w-10 shrink-0 rounded object-cover" data-testid="attachment-thumbnail" />
              ) : (
                <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded bg-white text-slate-500">
                  <Icon name="template" className="h-5 w-5" />
                </span>
              )}
              <span className="min-w-0">
                <span className="block max-w-[10rem] truncate font-medium">{m.filename}</span>
                <span className="block text-slate-500">
                  {sizeOf(m.size)}
                  {m.resizedFrom !== null && `, made smaller from ${sizeOf(m.resizedFrom)}`}
                </span>
              </span>
              <button
                type="button"
                onClick={() => remove(m.id)}
                disabled={sending}
                aria-label={`Remove ${m.filename}`}
                className="ml-1 rounded px-1 text-base leading-none text-slate-500 hover:bg-slate-200 hover:text-slate-800"
              >
                ×
              </button>
            </li>
          ))}
          {upload.busy && (
            <li className="flex items-center gap-2 px-2 text-xs text-slate-500" data-testid="attachment-uploading">
              <Spinner /> Uploading…
            </li>
          )}
        </ul>
      )}
      {upload.error && (
        <p className="mb-2 text-xs text-red-700" role="alert" data-testid="attach-error">
          {upload.error}
        </p>
      )}
      <div className="flex items-end gap-2">
        <input
          ref={picker}
          type="file"
          multiple
          accept={ATTACH_ACCEPT}
          className="hidden"
          data-testid="attach-input"
          onChange={(e) => {
            choose(e.target.files);
            // Cleared so the same file can be chosen again after removing it.
            e.target.value = "";
          }}
        />
        <button
          type="button"
          className="shrink-0 rounded-lg border border-slate-300 bg-white p-2 text-slate-600 hover:bg-slate-50 hover:text-slate-900 focus:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 disabled:cursor-not-allowed disabled:opacity-50"
          onClick={() => picker.current?.click()}
          disabled={disabled || sending || upload.busy || room <= 0}
          aria-label="Attach a picture or file"
          title={room <= 0 ? `At most ${MAX_ATTACHMENTS} pictures or files` : "Attach a picture or file"}
        >
          <Icon name="paperclip" className="h-5 w-5" />
        </button>
        {!disabled && <TemplatePicker label="Template" className="shrink-0 !px-2 !py-2 text-xs" onPick={applyTemplate} />}
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
          className="max-h-40 min-h-[2.5rem] min-w-0 flex-1 resize-y rounded-lg border border-slate-300 px-3 py-2 text-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30 disabled:bg-slate-100"
        />
        <Button onClick={() => void send()} disabled={blank || sending || disabled || upload.busy} aria-label="Send reply" className="shrink-0">
          {sending ? <Spinner /> : "Send"}
        </Button>
      </div>
      {attached.length > 0 && (
        <p className="mt-1 text-xs text-slate-500" data-testid="chat-mms-note">
          {text.length}/{CHAT_MAX} · Goes out as one MMS (a picture message).
        </p>
      )}
      {text && !attached.length && (
        <div className={cx("mt-2", compact && "max-h-16 overflow-y-auto")}>
          <SegmentCounter content={text} appendOptOut={false} />
          <p className={cx("mt-1 text-xs", segments > 1 ? "text-amber-700" : "text-slate-500")} data-testid="chat-length">
            {text.length}/{CHAT_MAX}
            {segments > 1 && ` · Longer than one text: this reply is billed as ${segments} segments.`}
          </p>
        </div>
      )}
      {!text && !attached.length && !compact && <p className="mt-1 text-xs text-slate-400">Enter to send, Shift+Enter for a new line</p>}
    </div>
  );
}

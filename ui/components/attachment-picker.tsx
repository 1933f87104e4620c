import { useRef } from "react";
import { ATTACH_ACCEPT, MAX_ATTACHMENTS, uploadMedia } from "../api/media";
import { errorMessage } from "../lib/api";
import { useMutation } from "../lib/use-mutation";
import { IMAGE, sizeOf, type BubbleMedia } from "./chat-media";
import { Icon } from "./icons";
import { Button, Spinner } from "./ui";

/** An attachment as a form holds it: what the server shows (MediaView), and the size it was made smaller from. */
export type Attachment = BubbleMedia & { resizedFrom?: number | null };

/**
 * Pictures and files attached to a campaign, a template or a drip step (issue 33): each chosen file is uploaded at
 * once (POST /api/media) and shown as a chip (thumbnail or name, size, "made smaller from", remove); the form sends
 * their ids with what it saves. Failures (415 type, 413 size) are told with each file's name.
 */
export function AttachmentPicker({
  value,
  onChange,
  disabled,
  label = "Attach a picture or file",
}: {
  value: Attachment[];
  onChange: (next: Attachment[]) => void;
  disabled?: boolean;
  label?: string;
}) {
  const picker = useRef<HTMLInputElement>(null);
  // The list as it grows during one run of uploads (each added as soon as it is stored).
  const current = useRef(value);
  current.current = value;
  const upload = useMutation(
    async (files: File[], left: number) => {
      const failures: string[] = left ? [`A message carries at most ${MAX_ATTACHMENTS} pictures or files; ${left} not attached.`] : [];
      for (const file of files) {
        try {
          const media = await uploadMedia(file);
          current.current = [...current.current, media];
          onChange(current.current);
        } catch (err) {
          failures.push(`${file.name}: ${errorMessage(err, "The file could not be uploaded")}`);
        }
      }
      if (failures.length) throw new Error(failures.join(" "));
    },
    { failureToast: (message) => ({ title: "File not attached", description: message, variant: "destructive" }) },
  );
  const room = MAX_ATTACHMENTS - value.length;
  const choose = (list: FileList | null) => {
    const files = Array.from(list ?? []);
    if (!files.length) return;
    const taken = files.slice(0, Math.max(0, room));
    void upload.run(taken, files.length - taken.length);
  };
  return (
    <div className="space-y-2" data-testid="attachment-picker">
      {(value.length > 0 || upload.busy) && (
        <ul className="flex flex-wrap gap-2" aria-label="Attachments" data-testid="form-attachments">
          {value.map((m) => (
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
                  {m.resizedFrom ? `, made smaller from ${sizeOf(m.resizedFrom)}` : ""}
                </span>
              </span>
              <button
                type="button"
                onClick={() => onChange(value.filter((x) => x.id !== m.id))}
                disabled={disabled}
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
        <p className="text-xs text-red-700" role="alert" data-testid="attach-error">
          {upload.error}
        </p>
      )}
      <input
        ref={picker}
        type="file"
        multiple
        accept={ATTACH_ACCEPT}
        className="hidden"
        data-testid="attach-input"
        onChange={(e) => {
          choose(e.target.files);
          e.target.value = "";
        }}
      />
      <Button
        variant="secondary"
        className="!px-2 !py-1 text-xs"
        onClick={() => picker.current?.click()}
        disabled={disabled || upload.busy || room <= 0}
        title={room <= 0 ? `At most ${MAX_ATTACHMENTS} pictures or files` : undefined}
      >
        <Icon name="paperclip" className="h-4 w-4" /> {label}
      </Button>
      {value.length > 0 && <p className="text-xs text-slate-500">With attachments each message goes as one MMS (Twilio, Telnyx or the simulator), priced per MMS.</p>}
    </div>
  );
}

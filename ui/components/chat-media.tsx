import type { MediaView } from "../../shared/media/types";
import { cx } from "./ui";

/** A picture or file of an MMS, as the API shows it. */
export type BubbleMedia = MediaView;

export const IMAGE = /^image\/(jpeg|png|gif)$/;

/** A file size as people read it: 640 KB, 1.2 MB. */
export const sizeOf = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`);

/**
 * An MMS's items under its bubble: pictures as thumbnails that open full size in a new tab (served by our own
 * /api/media, never the provider's URL), other files as download links, and an item still being copied from the
 * provider (or given up) saying so.
 */
export function ChatMedia({ media, out }: { media: BubbleMedia[]; out: boolean }) {
  if (!media.length) return null;
  return (
    <ul className={cx("mt-1 flex flex-wrap gap-1.5", out && "justify-end")} aria-label="Attachments" data-testid="chat-media">
      {media.map((m) => (
        <li key={m.id}>
          {m.status !== "stored" ? (
            <p
              className={cx("rounded-lg border px-2 py-1 text-xs", m.status === "failed" ? "border-red-200 bg-red-50 text-red-700" : "border-amber-200 bg-amber-50 text-amber-800")}
              data-testid="media-pending"
            >
              {m.status === "failed" ? "Attachment not copied" : "Copying attachment from the provider…"}
              {m.error && m.error !== "Being copied from the provider" ? ` ${m.error}` : ""}
            </p>
          ) : IMAGE.test(m.contentType) ? (
            <a href={m.url} target="_blank" rel="noopener noreferrer" title={`Open ${m.filename} full size`} className="block">
              <img
                src={m.url}
                alt={m.filename}
                loading="lazy"
                className="h-24 w-24 rounded-lg border border-slate-200 bg-white object-cover sm:h-32 sm:w-32"
                data-testid="media-thumbnail"
              />
            </a>
          ) : (
            <a
              href={m.url}
              download={m.filename}
              className="inline-block rounded-lg border border-slate-200 bg-white px-2 py-1 text-xs text-slate-700 underline hover:bg-slate-50"
              data-testid="media-file"
            >
              {m.filename} ({sizeOf(m.size)})
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}

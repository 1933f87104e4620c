import type { UploadedMedia } from "../../shared/media/types";
import { api } from "../lib/api";

export type { UploadedMedia };

/** Items one message carries at most (src/media/media.ts MAX_MEDIA_PER_MESSAGE). */
export const MAX_ATTACHMENTS = 5;

/** What the file picker offers: the types an MMS can carry (shared/media/sniff.ts reads the real type from the bytes). */
export const ATTACH_ACCEPT = "image/jpeg,image/png,image/gif,application/pdf,text/vcard,.vcf";

/**
 * Uploads one file to attach to a message (POST /api/media, the raw bytes; ?filename= names it). The server answers
 * 415 for a type an MMS cannot carry and 413 for a picture it cannot make small enough; a large photo takes it some
 * seconds to make smaller, hence the longer wait.
 */
export const uploadMedia = (file: File) =>
  api<UploadedMedia>(`/api/media?filename=${encodeURIComponent(file.name)}`, { body: file, timeoutMs: 60_000 });

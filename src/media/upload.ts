import type { AppContext } from "../context";
import { HttpError, badRequest } from "../http/errors";
import type { UploadedMedia } from "../../shared/media/types";
import { mediaView, safeFilename, saveMedia } from "./media";
import { TooLarge } from "./resize-contract";
import { fitForMmsInThread } from "./resize-thread";
import { NOT_AN_MMS_FILE } from "../../shared/media/limits";
import { sniffMediaType } from "../../shared/media/sniff";

export type { UploadedMedia } from "../../shared/media/types";

/**
 * An upload to attach to a message: its type read from its bytes (415 for anything but the MMS types, SVG and
 * HTML among them), made to fit what carriers deliver (413 naming the size and the limit when it cannot), stored.
 */
export async function uploadMedia(ctx: AppContext, userId: string, bytes: Uint8Array, filename: string | undefined): Promise<UploadedMedia> {
  if (!bytes.length) throw badRequest("The file is empty");
  const type = sniffMediaType(bytes);
  if (!type) throw new HttpError(415, NOT_AN_MMS_FILE);
  let fitted: { bytes: Uint8Array; type: typeof type };
  try {
    // In a thread: a large photo takes seconds to make smaller, which on the event loop held every request.
    fitted = await fitForMmsInThread(bytes, type);
  } catch (err) {
    if (err instanceof TooLarge) throw new HttpError(413, err.message);
    throw err;
  }
  const row = await saveMedia(ctx, userId, { bytes: fitted.bytes, contentType: fitted.type.contentType, filename: safeFilename(filename, fitted.type.extension) });
  return { ...mediaView(row), resizedFrom: fitted.bytes === bytes ? null : bytes.length };
}

/** Pictures and files of MMS as the API answers them (src/media/). */
/** One item as the API and the screens show it. */
export type MediaView = {
  id: string;
  contentType: string;
  filename: string;
  size: number;
  /** stored: the file is here; pending: a received item still being copied (retried); failed: given up. */
  status: "stored" | "pending" | "failed";
  error: string | null;
  /** Where a signed-in user of the account opens it. */
  url: string;
};

export type UploadedMedia = MediaView & {
  /** The size uploaded, when the picture was made smaller to fit (null when it was stored as sent). */
  resizedFrom: number | null;
};

import { ACCEPTED_TYPES } from "./sniff";

/**
 * The limits and refusals of pictures and files (MMS), in a module with no dependencies: the server enforces them
 * and /help renders them from here (ui/routes/public/mms-section.tsx), so the page cannot say other than what ships.
 */

/** What carriers deliver reliably (Twilio takes 5 MB, but carriers pass about 0.6-1.5 MB): the size every item fits. */
export const CARRIER_SAFE_BYTES = 600 * 1024;
/** Items one message carries at most (Twilio takes 10; 5 of at most 600 KB stay well within its 5 MB). */
export const MAX_MEDIA_PER_MESSAGE = 5;
/** What one received item may weigh: Twilio's own ceiling for a whole MMS. */
export const MAX_INBOUND_MEDIA_BYTES = 5 * 1024 * 1024;
/** Items one received message keeps (Twilio sends at most 10). */
export const MAX_INBOUND_ITEMS = 10;

/** How long the signed URL of an item in an outbound webhook stays good: past the webhooks' 5 days of retries. */
export const WEBHOOK_MEDIA_URL_TTL_MS = 7 * 24 * 3600_000;

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.ceil(n / 1024)} KB`;
}

/** The 415 of an upload whose bytes are none of the MMS types (an SVG or an HTML page named .jpg among them). */
export const NOT_AN_MMS_FILE = `This file is not ${ACCEPTED_TYPES}, the files an MMS can carry (SVG and HTML files are refused)`;

/** The 413 of an item that cannot be made to fit: `what` is GIF, file or picture. */
export const tooLargeMessage = (size: number, what: "GIF" | "file" | "picture") =>
  `This ${what} is ${formatBytes(size)} and could not be made smaller than ${formatBytes(CARRIER_SAFE_BYTES)}, the most an MMS carries`;

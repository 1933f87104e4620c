/**
 * What a file is, read from its first bytes and never from its name or the type a sender declared: a picture
 * someone calls image/jpeg may be an SVG or an HTML page, which a browser would run. Only the types an MMS may
 * carry are recognised; anything else is `null` (refused on upload, kept as a download-only file on receipt).
 */

export type MediaType = {
  contentType: "image/jpeg" | "image/png" | "image/gif" | "application/pdf" | "text/vcard";
  extension: "jpg" | "png" | "gif" | "pdf" | "vcf";
  /** A raster picture: shown as a thumbnail and served inline; other files are served as downloads only. */
  image: boolean;
};

/** A received item whose bytes are none of the types above: stored, but only ever served as a download. */
export const UNKNOWN_TYPE = "application/octet-stream";

/** The types an MMS may carry, by the name people know them by: what /help lists. */
export const MMS_TYPES = {
  jpeg: { name: "JPEG", contentType: "image/jpeg", extension: "jpg", image: true },
  png: { name: "PNG", contentType: "image/png", extension: "png", image: true },
  gif: { name: "GIF", contentType: "image/gif", extension: "gif", image: true },
  pdf: { name: "PDF", contentType: "application/pdf", extension: "pdf", image: false },
  vcard: { name: "vCard", contentType: "text/vcard", extension: "vcf", image: false },
} as const satisfies Record<string, MediaType & { name: string }>;

const startsWith = (bytes: Uint8Array, magic: number[], at = 0) => magic.every((b, i) => bytes[at + i] === b);

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

export function sniffMediaType(bytes: Uint8Array): MediaType | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return MMS_TYPES.jpeg;
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return MMS_TYPES.png;
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return MMS_TYPES.gif;
  if (startsWith(bytes, ascii("%PDF-"))) return MMS_TYPES.pdf;
  // A vCard is text: after an optional byte-order mark and blank space, BEGIN:VCARD in any case.
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, "").trimStart();
  if (head.toUpperCase().startsWith("BEGIN:VCARD")) return MMS_TYPES.vcard;
  return null;
}

/** The types an upload may be, for the refusal's wording. */
export const ACCEPTED_TYPES = "a JPEG, PNG or GIF image, a PDF or a vCard";

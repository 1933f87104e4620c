import type { AppContext } from "../context";
import { addressClass } from "./address-class";
import { recordHit } from "./clicks";
import { findShortLink, type ShortLink } from "./links";
import { CODE_ALPHABET, CODE_LENGTH, LINK_PATH } from "../../shared/links/text";

/**
 * GET or HEAD /l/<code>: a 302 to the link with its UTM parameters, after one primary-key lookup (its code decoded); the hit is kept in
 * memory for the next flush (src/links/clicks.ts), so nothing on this path waits for a write. An expired link
 * answers 410 with a page saying so; an unknown code 404.
 */

const CODE_RE = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);

const page = (status: number, title: string, text: string) =>
  new Response(
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>` +
      `<body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1e293b"><h1 style="font-size:1.4rem">${title}</h1><p>${text}</p></body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );

export const isShortLinkPath = (path: string) => path.startsWith(LINK_PATH);

export async function redirectShortLink(ctx: AppContext, request: Request, path: string, address: string | null): Promise<Response> {
  const code = path.slice(LINK_PATH.length);
  if (request.method !== "GET" && request.method !== "HEAD") return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
  return answer(ctx, request, CODE_RE.test(code) ? await findShortLink(ctx, code) : null, address);
}

function answer(ctx: AppContext, request: Request, link: ShortLink | null, address: string | null): Response {
  if (!link) return page(404, "Link not found", "This link does not exist. Check that it was copied whole.");
  const now = ctx.now();
  const h = request.headers;
  recordHit(ctx, {
    link,
    at: now,
    method: request.method,
    userAgent: h.get("user-agent") ?? "",
    purpose: h.get("sec-purpose") ?? h.get("purpose") ?? "",
    addressClass: address ? addressClass(address) : "unknown",
  });
  if (link.expires_at !== null && now >= link.expires_at) {
    return page(410, "This link has expired", "The offer or page this text message linked to is no longer available through this link.");
  }
  // no-store: a browser or proxy answering a second tap from its cache would hide the click.
  return new Response(null, { status: 302, headers: { location: link.target, "cache-control": "no-store", "referrer-policy": "no-referrer" } });
}

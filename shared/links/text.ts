/**
 * Links in a text, and the text as it goes out with short links (issue 32 item 1). Pure, with no imports: the
 * outbox, the server's estimates and the UI's segment counter measure a message with the same code.
 */

/** Short codes: fixed length, so a text's length with its short links is known before the codes are drawn. */
export const CODE_LENGTH = 7;
export const CODE_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** The path short links are served on: `<link domain>/l/<code>`. */
export const LINK_PATH = "/l/";

// http(s) links and bare www. ones; what ends a sentence (a full stop, a closing bracket...) is not part of the link.
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/gi;
const TRAILING = /[.,;:!?)\]}'"»”’]+$/;

export type FoundLink = { url: string; start: number; end: number };

/** The links of a text, in order, each without the punctuation that follows it. */
export function findLinks(text: string): FoundLink[] {
  const out: FoundLink[] = [];
  for (const m of text.matchAll(URL_RE)) {
    const url = m[0].replace(TRAILING, "");
    if (url.length < 8) continue;
    out.push({ url, start: m.index!, end: m.index! + url.length });
  }
  return out;
}

/** The short link of a code on a domain (an origin without its trailing slash). */
export const shortUrl = (domain: string, code: string) => `${domain}${LINK_PATH}${code}`;

/** Whether a link is already one of the domain's short links (not shortened twice). */
export const isShortLink = (domain: string, url: string) => url.startsWith(domain) && url.startsWith(LINK_PATH, domain.length);

/**
 * The text with each link replaced by what `replace` answers for it (null: left as written). Short links of the
 * domain are left as they are.
 */
export function replaceLinks(text: string, domain: string, replace: (url: string) => string | null): string {
  const links = findLinks(text);
  if (!links.length) return text;
  let out = "";
  let at = 0;
  for (const l of links) {
    const by = isShortLink(domain, l.url) ? null : replace(l.url);
    out += text.slice(at, l.start) + (by ?? l.url);
    at = l.end;
  }
  return out + text.slice(at);
}

/**
 * The text as it will be measured once its links are shortened: each link replaced by a short link of the same
 * length as a real one (its code drawn later), so segments and cost are counted on what is sent.
 */
export function withShortLinkLengths(text: string, domain: string): string {
  return replaceLinks(text, domain, () => shortUrl(domain, "x".repeat(CODE_LENGTH)));
}

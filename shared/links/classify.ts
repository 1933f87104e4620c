/**
 * Which hits of a short link are people (issue 32 item 2). Pure and import-free: the click recorder classifies with
 * it, and /help publishes CLICK_RULES from this same module, so what the page says is what the code does.
 */

export type Verdict = "human" | "preview" | "head" | "prefetch" | "scanner" | "repeat";

/** What is known of one hit when it is classified. */
export type Hit = {
  method: string;
  userAgent: string;
  /** The Purpose or Sec-Purpose header, as sent. */
  purpose: string;
  /** From src/links/address-class.ts: 'data-centre', 'public', 'private' or 'unknown'. */
  addressClass: string;
  at: number;
  /** When the message carrying the link was reported delivered, if it was. */
  deliveredAt: number | null;
  /** Whether a hit of the same link (same recipient) was already counted as a person's. */
  counted: boolean;
};

/** A hit this close to the message's delivery report is a carrier's or a mail filter's scanner, not a person. */
export const SCANNER_WINDOW_MS = 5_000;

/**
 * Link-preview fetchers, by user agent. Apple's iMessage sends "facebookexternalhit/1.1 Facebot Twitterbot/1.0",
 * which the Facebook and Twitter entries match too; it is listed first so the reason names it.
 */
export const PREVIEW_AGENTS: { name: string; pattern: RegExp; sample: string }[] = [
  { name: "Apple iMessage", pattern: /facebookexternalhit\/1\.1 Facebot Twitterbot\/1\.0/i, sample: "facebookexternalhit/1.1 Facebot Twitterbot/1.0" },
  { name: "WhatsApp", pattern: /WhatsApp\//i, sample: "WhatsApp/" },
  { name: "Facebook", pattern: /facebookexternalhit|Facebot/i, sample: "facebookexternalhit" },
  { name: "Slack", pattern: /Slackbot/i, sample: "Slackbot" },
  { name: "Twitter/X", pattern: /Twitterbot/i, sample: "Twitterbot" },
  { name: "Telegram", pattern: /TelegramBot/i, sample: "TelegramBot" },
  { name: "Discord", pattern: /Discordbot/i, sample: "Discordbot" },
  { name: "Google", pattern: /Googlebot|Google-PageRenderer/i, sample: "Googlebot, Google-PageRenderer" },
];

/** The rules in the order they are applied, as /help shows them: the first that matches decides. */
export const CLICK_RULES: { verdict: Verdict; title: string; rule: string }[] = [
  {
    verdict: "head",
    title: "HEAD requests",
    rule: "A HEAD request only asks whether the link exists; browsers opening a link send GET.",
  },
  {
    verdict: "prefetch",
    title: "Prefetches",
    rule: "A request with a Purpose or Sec-Purpose header of prefetch is a browser loading ahead, not a tap.",
  },
  {
    verdict: "preview",
    title: "Link previews",
    rule: `A user agent of a preview fetcher: ${PREVIEW_AGENTS.map((a) => `${a.name} (${a.sample})`).join(", ")}.`,
  },
  {
    verdict: "scanner",
    title: "Scanners",
    rule: `A request from a data-centre address range, or one within ${SCANNER_WINDOW_MS / 1000} seconds of the message's delivery report, when carriers' and security filters open every link.`,
  },
  {
    verdict: "repeat",
    title: "Repeats",
    rule: "A second or later click of the same recipient's link: each recipient counts once per link.",
  },
  {
    verdict: "human",
    title: "People",
    rule: "Every other hit is a person's click: only these count in click figures, segments, automation and webhooks.",
  },
];

/** The verdict of a hit and why, by CLICK_RULES in order. */
export function classify(hit: Hit): { verdict: Verdict; reason: string } {
  if (hit.method.toUpperCase() === "HEAD") return { verdict: "head", reason: "HEAD request" };
  if (/prefetch|prerender/i.test(hit.purpose)) return { verdict: "prefetch", reason: `Purpose: ${hit.purpose}` };
  const agent = PREVIEW_AGENTS.find((a) => a.pattern.test(hit.userAgent));
  if (agent) return { verdict: "preview", reason: `${agent.name} link preview` };
  if (hit.addressClass === "data-centre") return { verdict: "scanner", reason: "Data-centre address" };
  if (hit.deliveredAt !== null && Math.abs(hit.at - hit.deliveredAt) <= SCANNER_WINDOW_MS) {
    return { verdict: "scanner", reason: `Within ${SCANNER_WINDOW_MS / 1000} s of the delivery report` };
  }
  if (hit.counted) return { verdict: "repeat", reason: "Already clicked" };
  return { verdict: "human", reason: "A person's click" };
}

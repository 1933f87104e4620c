import { useMemo } from "react";
import { findLinks, withShortLinkLengths } from "../../../../shared/links/text";
import { hasMergeFields, measureSms } from "./model";

/** The longest message an audience will get once merge fields are filled (the delivery preview's `longest`). */
export type LongestMessage = { text: string; recipient: string } | null | undefined;

/**
 * The message as it will be sent, measured: the audience's longest rendered message when known (it carries the
 * opt-out line already), else the text typed with the opt-out line when on. Every count shown beside a message
 * reads this one, so that a length and a number of segments never disagree.
 */
export function useMeasuredSms(content: string, appendOptOut: boolean, longest?: LongestMessage, linkDomain?: string | null) {
  // A campaign's links go out as short links (issue 32): counted at their length, as the server counts them.
  const measured = longest && content ? longest.text : linkDomain ? withShortLinkLengths(content, linkDomain) : content;
  return useMemo(() => measureSms(measured, !(longest && content) && appendOptOut), [measured, longest, content, appendOptOut]);
}

/**
 * Encoding, characters and segments of a message as it will be sent (opt-out line included when on). Given the
 * audience's longest rendered message, it counts that one (already carrying the opt-out line) and names whose it is.
 */
export function SegmentCounter({
  content,
  appendOptOut,
  longest,
  linkDomain,
}: {
  content: string;
  appendOptOut: boolean;
  longest?: LongestMessage;
  /** Set where links are shortened when sent (campaigns): each link counts as a short link of this domain. */
  linkDomain?: string | null;
}) {
  const m = useMeasuredSms(content, appendOptOut, longest, linkDomain);
  const links = linkDomain ? findLinks(content).length : 0;
  const many = m.segments > 1;
  return (
    <div className="space-y-1 text-xs text-slate-600" data-testid="segment-counter" aria-live="polite">
      <p className="flex flex-wrap gap-x-3 gap-y-1">
        <span>
          Encoding: <strong className="font-medium text-slate-800">{m.encoding}</strong>
        </span>
        <span>
          <strong className="font-medium text-slate-800">{m.characters}</strong> characters
        </span>
        <span className={many ? "text-amber-700" : undefined}>
          <strong className="font-medium">{m.segments}</strong> segment{m.segments === 1 ? "" : "s"}
          {m.segments > 0 && ` (${m.perSegment} characters each)`}
        </span>
      </p>
      {m.unicodeCharacters.length > 0 && (
        <p className="text-amber-700">
          These characters switch the message to UCS-2 (70 characters per message instead of 160):{" "}
          {m.unicodeCharacters.map((c) => (
            <kbd key={c} className="mx-0.5 rounded border border-amber-300 bg-amber-50 px-1 font-sans">
              {c}
            </kbd>
          ))}
        </p>
      )}
      {appendOptOut && content && <p>Includes the opt-out line “Reply STOP to opt out”.</p>}
      {links > 0 && linkDomain && (
        <p data-testid="short-link-note">
          {links === 1 ? "The link goes" : `The ${links} links go`} out as short links such as {linkDomain}/l/Ab3xK9q, counted at that length.
        </p>
      )}
      {longest && content && hasMergeFields(content) ? (
        <p data-testid="longest-message">Counted on the longest message once merge fields are filled: {longest.recipient}’s.</p>
      ) : (
        hasMergeFields(content) && <p>Merge fields are filled per recipient, so the length varies a little.</p>
      )}
    </div>
  );
}

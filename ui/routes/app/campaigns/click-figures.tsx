import { Link } from "@tanstack/react-router";
import { useCampaignClicks } from "../../../api/campaigns";
import { formatNumber } from "../../../lib/format";
import { formatRate } from "./model";

/** What a hit that is not a person's was, in the words /help uses (shared/links/classify.ts). */
const NOT_COUNTED = [
  ["preview", "link preview", "link previews"],
  ["head", "HEAD request", "HEAD requests"],
  ["prefetch", "prefetch", "prefetches"],
  ["scanner", "scanner", "scanners"],
  ["repeat", "repeat", "repeats"],
] as const;

/**
 * A campaign's clicks (issue 32): people's clicks and the click rate over the messages sent, each link's, and what
 * was not counted. Figures from GET /api/campaigns/:id/clicks, following a campaign still sending.
 */
export function ClickFigures({ campaignId, locale, live }: { campaignId: string; locale: string; live: boolean }) {
  const clicks = useCampaignClicks(campaignId, live ? 5000 : undefined);
  const f = clicks.data;
  if (!f) return null;
  const n = (v: number) => formatNumber(v, locale);
  const others = NOT_COUNTED.filter(([k]) => f.hits[k] > 0).map(([k, one, many]) => `${n(f.hits[k])} ${f.hits[k] === 1 ? one : many}`);
  return (
    <section className="space-y-2" data-testid="click-figures">
      <dl className="grid grid-cols-2 gap-2 sm:grid-cols-4">
        <div className="rounded-lg bg-slate-50 px-3 py-2">
          <dt className="text-xs text-slate-500">Human clicks</dt>
          <dd className="text-lg font-semibold" data-testid="details-Human clicks">
            {n(f.humanClicks)}
          </dd>
        </div>
        <div className="rounded-lg bg-slate-50 px-3 py-2">
          <dt className="text-xs text-slate-500">Click rate</dt>
          <dd className="text-lg font-semibold" data-testid="details-Click rate">
            {formatRate(f.clickRate)}
          </dd>
        </div>
      </dl>
      {f.links.length > 0 && (
        <table className="w-full text-left text-sm" data-testid="link-clicks">
          <thead className="text-xs text-slate-500">
            <tr>
              <th className="py-1 font-medium">Link</th>
              <th className="py-1 text-right font-medium">Sent to</th>
              <th className="py-1 text-right font-medium">Human clicks</th>
              <th className="py-1 text-right font-medium">Click rate</th>
            </tr>
          </thead>
          <tbody>
            {f.links.map((l) => (
              <tr key={l.url} className="border-t border-slate-100">
                <td className="max-w-0 truncate py-1 pr-2" title={l.url}>
                  {l.url}
                </td>
                <td className="py-1 text-right">{n(l.sentTo)}</td>
                <td className="py-1 text-right">{n(l.humanClicks)}</td>
                <td className="py-1 text-right">{formatRate(l.clickRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {f.days.length > 0 && (
        <p className="text-xs text-slate-600" data-testid="clicks-by-day">
          By day (UTC): {f.days.map((d) => `${d.date} ${n(d.humanClicks)}`).join(", ")}
        </p>
      )}
      <p className="text-xs text-slate-500" data-testid="clicks-not-counted">
        {others.length ? `Not counted: ${others.join(", ")}. ` : ""}Only people's clicks count;{" "}
        <Link to="/help" className="underline">
          how clicks are told apart
        </Link>
        .
      </p>
    </section>
  );
}

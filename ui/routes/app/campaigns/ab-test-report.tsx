import { pickAbWinner, useAbTestReport, type AbTestReport as Report } from "../../../api/campaigns";
import { Button, Spinner } from "../../../components/ui";
import { formatNumber } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";
import { formatDateTime, formatRate } from "./model";

const MEASURES = { clicks: "human click rate", replies: "reply rate" } as const;

/**
 * A campaign's A/B test (issue 32 item 3): each variant's figures, the rest of the audience's, the confidence of
 * the difference in the server's words (GET /api/campaigns/:id/ab-test), and until a winner is picked "Send winner
 * now" (the leader) or "Pick this variant" for one in particular.
 */
export function AbTestReport({
  campaignId,
  status,
  locale,
  timeZone,
  live,
  onPicked,
}: {
  campaignId: string;
  status: string;
  locale: string;
  timeZone: string;
  live: boolean;
  onPicked: () => void;
}) {
  const report = useAbTestReport(campaignId, live ? 5000 : undefined);
  const pick = useMutation((variant: string | null) => pickAbWinner(campaignId, variant ?? undefined), {
    onSuccess: () => {
      report.reload();
      onPicked();
    },
    success: (r) => ({ title: `Variant ${r.report.winner} is the winner`, description: "The rest of the audience gets it now, within quiet hours." }),
    failureToast: "Could not send the winner",
  });
  const r = report.data;
  if (!r) return null;
  const n = (v: number) => formatNumber(v, locale);
  const open = r.winner === null && (status === "sending" || status === "paused");
  return (
    <section className="space-y-3" aria-label="A/B test" data-testid="ab-test-report">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 className="font-medium">A/B test</h3>
        <p className="text-xs text-slate-500">
          {r.testPercent}% of the audience, split evenly; the winner by {MEASURES[r.measure]},{" "}
          {r.decideAfterHours === null ? "picked by hand" : `picked ${r.decideAfterHours} hour${r.decideAfterHours === 1 ? "" : "s"} after the start`}
        </p>
      </div>
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="ab-test-variants">
          <thead className="text-left text-xs text-slate-500">
            <tr>
              <th className="py-1 pr-2 font-medium">Variant</th>
              <th className="py-1 pr-2 font-medium">Sent</th>
              <th className="py-1 pr-2 font-medium">Delivered</th>
              <th className="py-1 pr-2 font-medium">Human clicks</th>
              <th className="py-1 pr-2 font-medium">Click rate</th>
              <th className="py-1 pr-2 font-medium">Replies</th>
              <th className="py-1 pr-2 font-medium">Reply rate</th>
              <th className="py-1 font-medium">
                <span className="sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {r.variants.map((v) => (
              <tr key={v.label} data-testid={`ab-variant-${v.label}`}>
                <td className="py-2 pr-2">
                  <span className="font-semibold">{v.label}</span>
                  {r.winner === v.label && <span className="ml-2 rounded bg-emerald-100 px-1.5 py-0.5 text-xs text-emerald-800">Winner</span>}
                  <span className="block max-w-xs truncate text-xs text-slate-500" title={v.content}>
                    {v.content}
                  </span>
                </td>
                <td className="py-2 pr-2">{n(v.sent)}</td>
                <td className="py-2 pr-2">{n(v.delivered)}</td>
                <td className="py-2 pr-2">{n(v.humanClicks)}</td>
                <td className="py-2 pr-2">{formatRate(v.clickRate)}</td>
                <td className="py-2 pr-2">{n(v.repliers)}</td>
                <td className="py-2 pr-2">{formatRate(v.replyRate)}</td>
                <td className="py-2 text-right">
                  {open && (
                    <Button variant="secondary" className="!px-2 !py-1 text-xs" disabled={pick.busy} onClick={() => void pick.run(v.label)}>
                      Pick {v.label}
                    </Button>
                  )}
                </td>
              </tr>
            ))}
            <tr data-testid="ab-variant-rest">
              <td className="py-2 pr-2">
                <span className="font-semibold">Rest</span>
                <span className="block text-xs text-slate-500">
                  {r.rest.held > 0 ? `${n(r.rest.held)} waiting for the winner` : r.winner ? `Sent variant ${r.winner}` : "Nobody left"}
                </span>
              </td>
              <td className="py-2 pr-2">{n(r.rest.sent)}</td>
              <td className="py-2 pr-2">{n(r.rest.delivered)}</td>
              <td className="py-2 pr-2">{n(r.rest.humanClicks)}</td>
              <td className="py-2 pr-2">{formatRate(r.rest.clickRate)}</td>
              <td className="py-2 pr-2">—</td>
              <td className="py-2 pr-2">—</td>
              <td />
            </tr>
          </tbody>
        </table>
      </div>
      <p className={r.clearWinner ? "text-sm text-emerald-800" : "text-sm text-slate-700"} data-testid="ab-test-verdict">
        {r.verdict}
      </p>
      <Decision report={r} locale={locale} timeZone={timeZone} />
      {open && r.leader && (
        <div className="flex flex-wrap items-center gap-2">
          <Button disabled={pick.busy} onClick={() => void pick.run(null)}>
            {pick.busy && <Spinner />}
            Send winner now ({r.pick})
          </Button>
          {!r.clearWinner && <span className="text-xs text-slate-500">Not a clear winner yet: more time may tell them apart.</span>}
        </div>
      )}
    </section>
  );
}

function Decision({ report: r, locale, timeZone }: { report: Report; locale: string; timeZone: string }) {
  if (r.winner) {
    return (
      <p className="text-sm" data-testid="ab-test-decision">
        Variant {r.winner} was sent to the rest of the audience, picked {r.decidedBy === "user" ? "by you" : `by its ${MEASURES[r.measure]}`} on{" "}
        {formatDateTime(r.decidedAt, locale, timeZone)}.
      </p>
    );
  }
  if (r.decidesAt) {
    return (
      <p className="text-xs text-slate-500" data-testid="ab-test-decision">
        On {formatDateTime(r.decidesAt, locale, timeZone)} the variant with the higher {MEASURES[r.measure]} goes to the rest, clear winner or not (a tie
        goes to A).
      </p>
    );
  }
  return null;
}

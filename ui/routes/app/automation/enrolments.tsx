import { useState } from "react";
import * as dripsApi from "../../../api/drips";
import type { Drip, Enrolment } from "../../../api/drips";
import { useSegments } from "../../../api/segments";
import { Badge } from "../../../components/badge";
import { Alert, Button, Select, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { accountTime } from "../../../lib/format";
import { useMutation } from "../../../lib/use-mutation";

const when = (iso: string) => accountTime(iso);
const TONE = { active: "blue", completed: "green", exited: "slate" } as const;
const OUTCOME = { sent: "sent", skipped: "skipped", deferred: "deferred" } as const;

/** A drip's enrolments: who is where, who got which step when, and why someone was skipped or left. */
export function Enrolments({ drip, onChanged }: { drip: Drip; onChanged: () => void }) {
  const list = dripsApi.useEnrolments(drip.id);
  const segments = useSegments();
  const [segmentId, setSegmentId] = useState("");
  const { run: enrolSegment, busy } = useMutation(() => dripsApi.enrolInDrip(drip.id, { segmentId }), {
    onSuccess: async () => {
      await list.reload();
      onChanged();
    },
    success: (r) => ({ title: "Enrolled", description: `${r.enrolled} contact(s) enrolled${r.skipped.length ? `, ${r.skipped.length} skipped` : ""}.` }),
    fallback: "Could not enrol the segment",
    failureToast: "Error",
  });
  const remove = async (e: Enrolment) => {
    try {
      await dripsApi.removeEnrolment(drip.id, e.id);
      await list.reload();
      onChanged();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Could not remove the contact"), variant: "destructive" });
    }
  };

  return (
    <div className="space-y-3 border-t border-slate-200 pt-3">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <Select aria-label="Segment to enrol" className="!w-56" value={segmentId} onChange={(e) => setSegmentId(e.target.value)}>
          <option value="">Choose a segment…</option>
          {segments.data?.data.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </Select>
        <Button variant="secondary" className="!px-3 !py-1 text-xs" disabled={!segmentId || busy || !drip.isActive} onClick={() => void enrolSegment()}>
          Enrol segment
        </Button>
        <span className="text-slate-500">Selected contacts are enrolled from Contact Lists (Add to drip).</span>
      </div>
      {list.error && <Alert>{errorMessage(list.error, "Could not load the enrolments")}</Alert>}
      {list.loading && !list.data && <Spinner className="text-slate-400" />}
      {list.data && list.data.data.length === 0 && <p className="text-sm text-slate-600">Nobody is enrolled yet.</p>}
      <ul className="space-y-2">
        {list.data?.data.map((e) => (
          <li key={e.id} className="rounded-lg border border-slate-200 p-3 text-sm" data-testid="enrolment">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span className="font-medium">{e.contactName ?? "Deleted contact"}</span>
              <span className="flex items-center gap-2">
                <Badge tone={TONE[e.state]}>{e.state === "exited" ? `Exited: ${e.exitReason}` : e.state === "active" ? "Active" : "Completed"}</Badge>
                {e.state === "active" && (
                  <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => void remove(e)}>
                    Remove
                  </button>
                )}
              </span>
            </div>
            <ol className="mt-2 space-y-1 text-slate-700">
              {e.history.map((h, i) => (
                <li key={i} data-testid="enrolment-history">
                  Step {h.step + 1} {OUTCOME[h.outcome]} {when(h.at)}
                  {h.reason ? `: ${h.reason}` : ""}
                </li>
              ))}
              {e.state === "active" && e.nextAt && e.nextStep !== null && (
                <li data-testid="enrolment-next" className="text-slate-500">
                  Step {e.nextStep + 1} scheduled for {when(e.nextAt)}
                </li>
              )}
            </ol>
          </li>
        ))}
      </ul>
    </div>
  );
}

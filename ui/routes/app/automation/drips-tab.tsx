import { useState } from "react";
import * as dripsApi from "../../../api/drips";
import type { Drip, DripSample } from "../../../api/drips";
import { Badge } from "../../../components/badge";
import { useConfirm } from "../../../components/confirm-dialog";
import { Alert, Button, Card, Spinner } from "../../../components/ui";
import { errorMessage } from "../../../lib/api";
import { toast } from "../../../lib/toast";
import { DripDialog, TRIGGER_LABELS, type DripForm } from "./drip-dialog";
import { Enrolments } from "./enrolments";
import { useMutation } from "../../../lib/use-mutation";

const BLANK: DripForm = {
  name: "",
  trigger: "manual",
  steps: [{ delay: 0, unit: "days", sendAtHour: null, content: "", media: [] }],
  exitOnReply: true,
  goalTag: null,
  reentryDays: null,
  latePolicy: "skip",
  lateAfterMinutes: 60,
};

const fromSample = (s: DripSample): DripForm => ({ ...BLANK, name: s.name, trigger: s.trigger, steps: s.steps.map((x) => ({ ...x, media: [] })) });
const fromDrip = (d: Drip): DripForm => ({
  name: d.name,
  trigger: d.trigger,
  steps: d.steps,
  exitOnReply: d.exitOnReply,
  goalTag: d.goalTag,
  reentryDays: d.reentryDays,
  latePolicy: d.latePolicy,
  lateAfterMinutes: d.lateAfterMinutes,
});

/** "Day 0, 1, 3, 7": each step's day counted from enrolment, for the card. */
function schedule(d: Drip) {
  let minutes = 0;
  const per = { minutes: 1, hours: 60, days: 1440 } as const;
  return d.steps
    .map((s) => {
      minutes += s.delay * per[s.unit];
      const at = s.sendAtHour === null ? "" : ` ${String(s.sendAtHour).padStart(2, "0")}:00`;
      return minutes % 1440 === 0 ? `day ${minutes / 1440}${at}` : minutes % 60 === 0 ? `${minutes / 60} h${at}` : `${minutes} min${at}`;
    })
    .join(", ");
}

/** The Drip Campaigns tab: the drips, the samples to start from, the create/edit dialog and each drip's enrolments. */
export function DripsTab() {
  const list = dripsApi.useDrips();
  const [editing, setEditing] = useState<{ initial: DripForm; drip: Drip | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();

  const { run: toggle, busy } = useMutation((d: Drip) => dripsApi.toggleDrip(d.id), {
    onSuccess: () => list.reload(),
    fallback: "Could not switch the drip",
    failureToast: "Error",
  });
  const remove = async (d: Drip) => {
    const ok = await ask({
      title: "Delete drip campaign",
      message: `Delete "${d.name}"? ${d.enrolments.active} contact(s) waiting in it get no further steps, and its history goes too.`,
      confirmLabel: "Delete",
      danger: true,
    });
    if (!ok) return;
    try {
      await dripsApi.deleteDrip(d.id);
      if (open === d.id) setOpen(null);
      await list.reload();
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, "Could not delete the drip"), variant: "destructive" });
    }
  };

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={() => setEditing({ initial: BLANK, drip: null })}>Create Drip Campaign</Button>
        {list.data?.samples.map((s) => (
          <Button key={s.id} variant="secondary" onClick={() => setEditing({ initial: fromSample(s), drip: null })}>
            Start from {s.name}
          </Button>
        ))}
      </div>
      {list.error && <Alert>{errorMessage(list.error, "Could not load the drip campaigns")}</Alert>}
      {list.loading && !list.data && <Spinner className="text-slate-400" />}
      {list.data && list.data.data.length === 0 && (
        <Card className="p-8 text-center text-sm text-slate-600">No drip campaigns yet. Create one, or start from a sample.</Card>
      )}
      {list.data?.data.map((d) => (
        <Card key={d.id} className="p-4">
          <div data-testid="drip-card" className="space-y-2">
            <div className="flex flex-wrap items-start justify-between gap-2">
              <div>
                <h2 className="font-semibold text-slate-900">{d.name}</h2>
                <p className="text-sm text-slate-600">
                  {TRIGGER_LABELS[d.trigger] ?? d.trigger} · {d.steps.length} step{d.steps.length === 1 ? "" : "s"}: {schedule(d)}
                </p>
              </div>
              <Badge tone={d.isActive ? "green" : "slate"}>{d.isActive ? "Active" : "Inactive"}</Badge>
            </div>
            <p className="text-sm text-slate-700" data-testid="drip-counts">
              {d.enrolments.active} waiting · {d.enrolments.completed} completed · {d.enrolments.exited} exited
            </p>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => setOpen(open === d.id ? null : d.id)}>
                {open === d.id ? "Hide enrolments" : "Enrolments"}
              </Button>
              <Button variant="secondary" className="!px-3 !py-1 text-xs" onClick={() => setEditing({ initial: fromDrip(d), drip: d })}>
                Edit
              </Button>
              <Button variant="secondary" className="!px-3 !py-1 text-xs" disabled={busy} onClick={() => void toggle(d)}>
                {d.isActive ? "Deactivate" : "Activate"}
              </Button>
              <Button variant="ghost" className="!px-3 !py-1 text-xs" onClick={() => void remove(d)}>
                Delete
              </Button>
            </div>
            {open === d.id && <Enrolments drip={d} onChanged={() => void list.reload()} />}
          </div>
        </Card>
      ))}
      {editing && (
        <DripDialog
          initial={editing.initial}
          drip={editing.drip}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void list.reload();
          }}
        />
      )}
      {dialog}
    </div>
  );
}

import { useState } from "react";
import * as dripsApi from "../../../api/drips";
import type { Drip, DripInput, DripStepInput } from "../../../api/drips";
import { AttachmentPicker, type Attachment } from "../../../components/attachment-picker";
import { Alert, Button, Field, Input, Modal, Select } from "../../../components/ui";
import { ApiError } from "../../../lib/api";
import { submitWith, useMutation } from "../../../lib/use-mutation";

export const TRIGGER_LABELS: Record<string, string> = {
  opt_in: "Contact opts in",
  keyword_received: "Keyword received",
  purchase: "Purchase",
  birthday: "Birthday",
  inactive: "Inactive contact",
  manual: "Manual enrolment",
};

/** A step as the editor holds it: its attachments as chips (saved as their ids). */
export type DripStepForm = Omit<DripStepInput, "mediaIds"> & { media: Attachment[] };
export type DripForm = Omit<DripInput, "steps"> & { steps: DripStepForm[] };

/** What the form saves: each step's attachments by id. */
const toInput = (form: DripForm): DripInput => ({ ...form, steps: form.steps.map(({ media, ...s }) => ({ ...s, mediaIds: media.map((m) => m.id) })) });

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const hourLabel = (h: number) => `${String(h).padStart(2, "0")}:00`;

/** Create Drip Campaign / Edit: the name, the trigger, the ordered steps and the exit, re-entry and lateness rules. */
export function DripDialog({ initial, drip, onClose, onSaved }: { initial: DripForm; drip: Drip | null; onClose: () => void; onSaved: () => void }) {
  const [form, setForm] = useState<DripForm>(initial);
  // Contacts part-way through the drip when a change of steps was refused: the user decides for them.
  const [waiting, setWaiting] = useState<number | null>(null);
  const set = <K extends keyof DripForm>(k: K, v: DripForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  // From the latest form: an upload ends after other edits of the form may have been made.
  const setStep = (i: number, patch: Partial<DripStepForm>) => setForm((f) => ({ ...f, steps: f.steps.map((s, j) => (j === i ? { ...s, ...patch } : s)) }));

  const saving = useMutation<[applyToWaiting?: boolean], boolean>(
    async (applyToWaiting?: boolean) => {
      setWaiting(null);
      try {
        if (drip) await dripsApi.saveDrip(drip.id, { ...toInput(form), applyToWaiting });
        else await dripsApi.createDrip(toInput(form));
        return true;
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 409 && typeof err.body.waiting === "number")) throw err;
        setWaiting(err.body.waiting);
        return false;
      }
    },
    { onSuccess: (saved) => saved && onSaved(), fallback: "Could not save the drip campaign" },
  );
  const { run: save, busy, error } = saving;

  return (
    <Modal open onClose={onClose} title={drip ? "Edit Drip Campaign" : "Create Drip Campaign"}>
      <form onSubmit={submitWith(save)} className="space-y-4">
        {error && <Alert>{error}</Alert>}
        <Field label="Name" htmlFor="drip-name">
          <Input id="drip-name" value={form.name} maxLength={100} onChange={(e) => set("name", e.target.value)} required />
        </Field>
        <Field label="Trigger" htmlFor="drip-trigger">
          <Select id="drip-trigger" value={form.trigger} onChange={(e) => set("trigger", e.target.value)}>
            {Object.entries(TRIGGER_LABELS).map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </Select>
        </Field>
        <ol className="space-y-3">
          {form.steps.map((s, i) => (
            <li key={i} className="rounded-lg border border-slate-200 p-3" data-testid="drip-step">
              <div className="flex items-center justify-between">
                <span className="text-sm font-medium">Step {i + 1}</span>
                {form.steps.length > 1 && (
                  <button type="button" className="text-xs text-red-700 hover:underline" onClick={() => set("steps", form.steps.filter((_, j) => j !== i))}>
                    Remove step {i + 1}
                  </button>
                )}
              </div>
              <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
                <Input
                  type="number"
                  min={0}
                  max={365}
                  className="!w-20"
                  aria-label={`Step ${i + 1} delay`}
                  value={s.delay}
                  onChange={(e) => setStep(i, { delay: Math.max(0, Math.min(365, Number(e.target.value) || 0)) })}
                />
                <Select className="!w-28" aria-label={`Step ${i + 1} delay unit`} value={s.unit} onChange={(e) => setStep(i, { unit: e.target.value as DripStepForm["unit"] })}>
                  <option value="minutes">minutes</option>
                  <option value="hours">hours</option>
                  <option value="days">days</option>
                </Select>
                <span>{i === 0 ? "after enrolment" : "after the previous step"}, at</span>
                <Select
                  className="!w-36"
                  aria-label={`Step ${i + 1} send at`}
                  value={s.sendAtHour ?? ""}
                  onChange={(e) => setStep(i, { sendAtHour: e.target.value === "" ? null : Number(e.target.value) })}
                >
                  <option value="">any time</option>
                  {HOURS.map((h) => (
                    <option key={h} value={h}>
                      {hourLabel(h)} their time
                    </option>
                  ))}
                </Select>
              </div>
              <textarea
                aria-label={`Step ${i + 1} message`}
                className="mt-2 w-full rounded-lg border border-slate-300 p-2 text-sm"
                rows={3}
                maxLength={1600}
                value={s.content}
                onChange={(e) => setStep(i, { content: e.target.value })}
              />
              <label className="mt-1 flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={s.shortenLinks !== false}
                  onChange={(e) => setStep(i, { shortenLinks: e.target.checked ? undefined : false })}
                  aria-label={`Step ${i + 1}: shorten links and count clicks`}
                />
                Shorten links and count clicks
              </label>
              <div className="mt-2" data-testid={`step-${i + 1}-attachments`}>
                <AttachmentPicker value={s.media} onChange={(media) => setStep(i, { media })} disabled={busy} label={`Attach to step ${i + 1}`} />
              </div>
            </li>
          ))}
        </ol>
        <Button
          variant="secondary"
          disabled={form.steps.length >= 20}
          onClick={() => set("steps", [...form.steps, { delay: 1, unit: "days", sendAtHour: null, content: "", media: [] }])}
        >
          Add step
        </Button>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={form.exitOnReply} onChange={(e) => set("exitOnReply", e.target.checked)} />
          Stop when the contact replies (an opt-out always stops it)
        </label>
        <Field label="Goal tag" htmlFor="drip-goal" hint="A contact who gets this tag leaves the drip before the next step.">
          <Input id="drip-goal" value={form.goalTag ?? ""} maxLength={50} onChange={(e) => set("goalTag", e.target.value || null)} />
        </Field>
        <Field label="Re-entry" htmlFor="drip-reentry">
          <Select
            id="drip-reentry"
            value={form.reentryDays === null ? "" : String(form.reentryDays)}
            onChange={(e) => set("reentryDays", e.target.value === "" ? null : Number(e.target.value))}
          >
            <option value="">Never: a contact goes through once</option>
            {[7, 30, 90, 365].map((d) => (
              <option key={d} value={d}>
                Again after {d} days
              </option>
            ))}
          </Select>
        </Field>
        <Field label="A step more than an hour late (the server was down)" htmlFor="drip-late">
          <Select id="drip-late" value={form.latePolicy} onChange={(e) => set("latePolicy", e.target.value as DripInput["latePolicy"])}>
            <option value="skip">is skipped and logged</option>
            <option value="send">is sent late</option>
          </Select>
        </Field>
        <div className="flex justify-end gap-2">
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {drip ? "Save" : "Create Drip Campaign"}
          </Button>
        </div>
      </form>
      <Modal open={waiting !== null} onClose={() => setWaiting(null)} title="Contacts are waiting in this drip">
        <p className="text-sm text-slate-700">
          {waiting} contact(s) are part-way through this drip. Apply the new steps to them (their next step is rescheduled), or keep them
          on the steps they started with?
        </p>
        <div className="mt-4 flex flex-wrap justify-end gap-2">
          <Button variant="ghost" onClick={() => setWaiting(null)}>
            Cancel
          </Button>
          <Button variant="secondary" onClick={() => void save(false)}>
            Keep their steps
          </Button>
          <Button onClick={() => void save(true)}>Apply to them</Button>
        </div>
      </Modal>
    </Modal>
  );
}

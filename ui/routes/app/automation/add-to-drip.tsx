import { useState } from "react";
import * as dripsApi from "../../../api/drips";
import { Button, Modal, Select } from "../../../components/ui";
import { useMutation } from "../../../lib/use-mutation";

/** The contact list's bulk action "Add to drip": enrols the selected contacts in an active drip campaign. */
export function AddToDrip({ contactIds, onDone }: { contactIds: string[]; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)} disabled={!contactIds.length}>
        Add to drip
      </Button>
      {open && (
        <DripPicker
          contactIds={contactIds}
          onClose={() => setOpen(false)}
          onDone={() => {
            setOpen(false);
            onDone();
          }}
        />
      )}
    </>
  );
}

function DripPicker({ contactIds, onClose, onDone }: { contactIds: string[]; onClose: () => void; onDone: () => void }) {
  const list = dripsApi.useDrips();
  const active = list.data?.data.filter((d) => d.isActive) ?? [];
  const [dripId, setDripId] = useState("");
  const { run: enrol, busy } = useMutation(() => dripsApi.enrolInDrip(dripId, { contactIds }), {
    onSuccess: onDone,
    success: (r) => {
      const reasons = [...new Set(r.skipped.map((s) => s.reason))].join("; ");
      return { title: "Added to drip", description: `${r.enrolled} contact(s) enrolled${r.skipped.length ? `; ${r.skipped.length} not: ${reasons}` : ""}.` };
    },
    fallback: "Could not enrol the contacts",
    failureToast: "Error",
  });
  return (
    <Modal open onClose={onClose} title="Add to drip">
      {list.data && active.length === 0 ? (
        <p className="text-sm text-slate-600">No active drip campaign. Create one under Automation, Drip Campaigns.</p>
      ) : (
        <div className="space-y-4">
          <Select aria-label="Drip campaign" value={dripId} onChange={(e) => setDripId(e.target.value)}>
            <option value="">Choose a drip campaign…</option>
            {active.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </Select>
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={onClose}>
              Cancel
            </Button>
            <Button disabled={!dripId || busy} onClick={() => void enrol()}>
              Enrol {contactIds.length} contact{contactIds.length === 1 ? "" : "s"}
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}

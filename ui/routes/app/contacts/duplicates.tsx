import { useEffect, useState } from "react";
import { Button, Modal, Spinner } from "../../../components/ui";
import { mergeContacts } from "../../../api/contacts";
import { formatNumber } from "../../../lib/format";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { contactName, formatPhone, type DuplicateGroup } from "./model";

/** Lists up to 3 duplicate groups, then "And N more duplicate groups...", with a View Duplicates / Show All toggle. */
export function DuplicateBanner({
  groups,
  total,
  showingDuplicates,
  onToggle,
  onMerge,
  locale,
}: {
  groups: DuplicateGroup[];
  total: number;
  showingDuplicates: boolean;
  onToggle: () => void;
  onMerge: (group: DuplicateGroup) => void;
  locale: string;
}) {
  if (total === 0) return null;
  const more = total - Math.min(3, groups.length);
  return (
    <div
      role="region"
      aria-label="Duplicate contacts"
      className="rounded-xl border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900"
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="space-y-1">
          <p className="font-semibold">
            {formatNumber(total, locale)} duplicate phone number{total === 1 ? "" : "s"} found
          </p>
          <ul className="space-y-1">
            {groups.slice(0, 3).map((g) => (
              <li key={g.phone} className="flex flex-wrap items-center gap-2">
                <span>
                  <span className="font-medium">{formatPhone(g.phone)}</span>: {g.contacts.map((c) => contactName(c)).join(", ")}
                </span>
                <button type="button" className="font-medium text-amber-800 underline" onClick={() => onMerge(g)}>
                  Merge
                </button>
              </li>
            ))}
          </ul>
          {more > 0 && <p>And {formatNumber(more, locale)} more duplicate groups...</p>}
        </div>
        <Button variant="secondary" onClick={onToggle}>
          {showingDuplicates ? "Show All" : "View Duplicates"}
        </Button>
      </div>
    </div>
  );
}

/** Choose the contact to keep; the rest of the group merges into it. */
export function MergeDialog({
  group,
  onClose,
  onMerged,
}: {
  group: DuplicateGroup | null;
  onClose: () => void;
  onMerged: () => void;
}) {
  const [primary, setPrimary] = useState<string | null>(null);
  // Run only from the dialog below, which shows only with a group.
  const merging = useMutation(
    (keep: string, group: DuplicateGroup) => mergeContacts(keep, group.contacts.map((c) => c.id).filter((id) => id !== keep)),
    {
      onSuccess: (_, _keep, group) => {
        toast({ title: "Contacts merged", description: `${group.contacts.length} contacts merged into one.` });
        onMerged();
        onClose();
      },
      // The server's reason is not shown: one plain sentence, as before.
      failureToast: () => ({ title: "Merge failed", description: "Failed to merge contacts. Please try again.", variant: "destructive" }),
    },
  );
  const busy = merging.busy;
  useEffect(() => setPrimary(null), [group]);
  if (!group) return null;

  const merge = async () => {
    if (!primary) {
      toast({
        title: "Select primary contact",
        description: "Please select which contact to keep as primary.",
        variant: "destructive",
      });
      return;
    }
    await merging.run(primary, group);
  };

  return (
    <Modal open onClose={onClose} title="Merge Duplicates">
      <p className="mb-3 text-sm text-slate-600">
        These contacts share the phone number {formatPhone(group.phone)}. Choose the one to keep; tags, custom fields, consent
        history and conversations of the others move to it.
      </p>
      <fieldset className="space-y-2">
        <legend className="sr-only">Primary contact</legend>
        {group.contacts.map((c) => (
          <label
            key={c.id}
            className="flex cursor-pointer items-start gap-3 rounded-lg border border-slate-200 p-3 hover:bg-slate-50"
          >
            <input type="radio" name="primary" className="mt-1" checked={primary === c.id} onChange={() => setPrimary(c.id)} />
            <span className="text-sm">
              <span className="block font-medium">{contactName(c)}</span>
              <span className="block text-slate-500">{[c.email, formatPhone(c.phone)].filter(Boolean).join(" · ")}</span>
              {c.tags.length > 0 && <span className="block text-xs text-slate-500">Tags: {c.tags.join(", ")}</span>}
            </span>
          </label>
        ))}
      </fieldset>
      <div className="mt-4 flex justify-end gap-2">
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={merge} disabled={busy}>
          {busy && <Spinner />}
          Merge Contacts
        </Button>
      </div>
    </Modal>
  );
}

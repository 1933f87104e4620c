/**
 * The dashboards' recent campaigns open the campaign screen's own dialogs: View (details and delivery) and Edit
 * (drafts and scheduled ones), and New Campaign opens its create dialog.
 */
import { useState } from "react";
import type { User } from "../../../api/auth";
import { useCampaign } from "../../../api/campaigns";
import { Modal, Spinner } from "../../../components/ui";
import { CampaignDialog } from "../campaigns/campaign-dialog";
import { DetailsDialog } from "../campaigns/details-dialog";
import { statusBadge, type Campaign } from "../campaigns/model";

export type CampaignAction = { kind: "view" | "edit"; id: string } | { kind: "new" } | null;

export function StatusBadge({ status }: { status: string }) {
  const b = statusBadge(status);
  return <span className={`whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ${b.className}`}>{b.label}</span>;
}

/** Shows the dialog an action asks for (mounted while open); `onChanged` after a save. */
export function CampaignActionDialogs({ action, user, onClose, onChanged }: { action: CampaignAction; user: User; onClose: () => void; onChanged: () => void }) {
  const [editing, setEditing] = useState<Campaign | null>(null);
  if (editing) {
    return (
      <CampaignDialog
        campaign={editing}
        user={user}
        onClose={() => {
          setEditing(null);
          onClose();
        }}
        onSaved={onChanged}
      />
    );
  }
  if (!action) return null;
  if (action.kind === "new") return <CampaignDialog campaign={null} user={user} onClose={onClose} onSaved={onChanged} />;
  return <LoadedCampaign id={action.id} user={user} edit={action.kind === "edit"} onClose={onClose} onEdit={setEditing} onSaved={onChanged} />;
}

function LoadedCampaign({
  id,
  user,
  edit,
  onClose,
  onEdit,
  onSaved,
}: {
  id: string;
  user: User;
  edit: boolean;
  onClose: () => void;
  onEdit: (c: Campaign) => void;
  onSaved: () => void;
}) {
  const campaign = useCampaign(id);
  if (!campaign.data) {
    return (
      <Modal open onClose={onClose} title="Campaign">
        {campaign.error ? <p className="text-sm text-red-600">Could not load the campaign: {campaign.error.message}</p> : <Spinner className="text-slate-400" />}
      </Modal>
    );
  }
  if (edit) {
    return <CampaignDialog campaign={campaign.data} user={user} onClose={onClose} onSaved={onSaved} />;
  }
  return <DetailsDialog campaign={campaign.data} user={user} onClose={onClose} onEdit={onEdit} />;
}

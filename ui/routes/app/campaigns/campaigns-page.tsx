import { useSignals } from "@preact/signals-react/runtime";
import { useNavigate, useRouterState } from "@tanstack/react-router";
import type { Attachment } from "../../../components/attachment-picker";
import { useEffect, useState, type ReactNode } from "react";
import { ConfirmDialog } from "../../../components/confirm-dialog";
import { Pagination } from "../../../components/pagination";
import { Button, Card, Input, Spinner } from "../../../components/ui";
import { campaignAction, deleteCampaign, duplicateCampaign, sendHeldMessages, useCampaigns } from "../../../api/campaigns";
import { errorMessage } from "../../../lib/api";
import { auth } from "../../../lib/auth";
import { useLiveRefresh } from "../../../lib/live";
import { toast } from "../../../lib/toast";
import { CampaignCard, type CardAction } from "./campaign-card";
import { CampaignDialog } from "./campaign-dialog";
import { DetailsDialog } from "./details-dialog";
import { CAMPAIGN_REFRESH_MS, isLive, type Campaign } from "./model";
import { HeldWarning } from "./held-warning";
import { CampaignWizard, type WizardPrefill } from "./wizard";
import { MAX_MESSAGE } from "./wizard-steps";
import { wizardRoute } from "../../../router";

const PAGE_SIZE = 12;

const ACTION_DONE: Record<"pause" | "resume" | "cancel", { path: string; title: string; failure: string }> = {
  pause: { path: "pause", title: "Campaign paused", failure: "Failed to pause campaign" },
  resume: { path: "resume", title: "Campaign resumed", failure: "Failed to resume campaign" },
  cancel: { path: "cancel", title: "Campaign cancelled", failure: "Failed to cancel campaign" },
};

declare module "@tanstack/history" {
  interface HistoryState {
    /** Attachments a screen opens with, handed over by the one that navigated (copies of a template's). */
    attachments?: Attachment[];
  }
}

/** The SMS campaign screen (/sms-campaigns, /campaigns, /send-message); `wizard` opens it on the wizard. */
export function CampaignsPage({ wizard }: { wizard?: WizardPrefill } = {}) {
  useSignals();
  const user = auth.value.user!;
  const navigate = useNavigate();
  const [search, setSearch] = useState("");
  const [q, setQ] = useState("");
  const [page, setPage] = useState(1);
  const [editing, setEditing] = useState<{ campaign: Campaign | null } | null>(null);
  const [details, setDetails] = useState<Campaign | null>(null);
  const [wizardOpen, setWizardOpen] = useState(!!wizard);
  const [polling, setPolling] = useState(false);
  // Deleting a draft, cancelling a send and sending held messages inside quiet hours are asked once more in the app's own dialog.
  const [confirming, setConfirming] = useState<{
    title: string;
    text: ReactNode;
    label: string;
    run: () => Promise<void>;
  } | null>(null);

  useEffect(() => setWizardOpen(!!wizard), [wizard]);
  useEffect(() => {
    const t = setTimeout(() => {
      setQ(search.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(t);
  }, [search]);

  // Live progress from the socket; polling only while it is down and a campaign is on its way.
  const pollMs = useLiveRefresh(["campaign_progress"], () => list.reload(), { pollMs: polling ? CAMPAIGN_REFRESH_MS : undefined });
  const list = useCampaigns({ page, pageSize: PAGE_SIZE, q }, pollMs);
  const campaigns = (list.data?.data ?? []).filter((c) => c.type !== "email");
  const anyActive = campaigns.some((c) => isLive(c));
  useEffect(() => setPolling(anyActive), [anyActive]);
  const total = list.data?.total ?? 0;

  const closeWizard = () => {
    setWizardOpen(false);
    if (wizard) void navigate({ to: "/sms-campaigns" });
  };

  const act = async (c: Campaign, action: CardAction) => {
    switch (action) {
      case "edit":
        return setEditing({ campaign: c });
      case "view":
        return setDetails(c);
      case "duplicate":
        try {
          const copy = await duplicateCampaign(c.id);
          toast({ title: "Campaign duplicated", description: `“${copy.name}” was saved as a draft.` });
        } catch (err) {
          toast({ title: "Error", description: errorMessage(err, "Failed to duplicate campaign"), variant: "destructive" });
        }
        return list.reload();
      case "delete":
        return setConfirming({
          title: "Delete draft",
          text: `Delete the draft “${c.name}”? This cannot be undone.`,
          label: "Delete",
          run: async () => {
            try {
              await deleteCampaign(c.id);
              toast({ title: "Campaign deleted" });
            } catch (err) {
              toast({ title: "Error", description: errorMessage(err, "Failed to delete campaign"), variant: "destructive" });
            }
            await list.reload();
          },
        });
      case "cancel":
        return setConfirming({
          title: "Cancel sending",
          text: `Cancel “${c.name}”? Messages not sent yet will not be sent.`,
          label: "Cancel sending",
          run: () => runAction(c, "cancel"),
        });
      case "sendHeld":
        return setConfirming({
          title: "Send held messages now",
          text: <HeldWarning campaign={c} locale={user.locale} />,
          label: "Send now",
          run: async () => {
            try {
              const { released } = await sendHeldMessages(c.id);
              toast({
                title: "Held messages sent now",
                description: `${released} message${released === 1 ? "" : "s"} of “${c.name}” ${released === 1 ? "is" : "are"} going out now; quiet hours no longer hold this campaign.`,
              });
            } catch (err) {
              toast({ title: "Error", description: errorMessage(err, "Failed to send the held messages"), variant: "destructive" });
            }
            await list.reload();
          },
        });
      default:
        return runAction(c, action);
    }
  };

  const runAction = async (c: Campaign, action: "pause" | "resume" | "cancel") => {
    const done = ACTION_DONE[action];
    try {
      await campaignAction(c.id, action);
      toast({ title: done.title });
    } catch (err) {
      toast({ title: "Error", description: errorMessage(err, done.failure), variant: "destructive" });
    }
    await list.reload();
  };

  const openCreate = () => setEditing({ campaign: null });

  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">SMS Campaigns</h1>
          <p className="text-slate-600">Write a text, choose who gets it, and send it now or later.</p>
          <p className="mt-1 text-sm text-slate-500" data-testid="campaign-buttons-help">
            <strong className="font-medium text-slate-700">New SMS Campaign</strong> walks you through it in four steps.{" "}
            <strong className="font-medium text-slate-700">Full Campaign Form</strong> puts everything on one page: a
            name, typed or uploaded numbers, drafts.
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" onClick={openCreate}>
            Full Campaign Form
          </Button>
          <Button onClick={() => setWizardOpen(true)}>
            New SMS Campaign
          </Button>
        </div>
      </div>

      <div className="flex items-center gap-3">
        <Input
          type="search"
          aria-label="Search campaigns"
          placeholder="Search by name, message or phone number"
          className="max-w-md"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        {list.loading && <Spinner className="text-slate-400" />}
      </div>

      {list.error && <p className="text-sm text-red-600">Could not load campaigns: {list.error.message}</p>}

      {campaigns.length > 0 && (
        <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" aria-label="Campaigns">
          {campaigns.map((c) => (
            <li key={c.id} data-testid="campaign-card">
              <CampaignCard
                campaign={c}
                locale={user.locale}
                timeZone={user.timezone}
                onAction={(a) => void act(c, a)}
                onDetails={() => setDetails(c)}
              />
            </li>
          ))}
        </ul>
      )}

      {!list.loading && !list.error && campaigns.length === 0 && (
        <Card className="p-10 text-center">
          {q ? (
            <p className="text-slate-600">No campaigns match “{q}”.</p>
          ) : (
            <>
              <p className="font-medium">No SMS campaigns yet</p>
              <p className="mt-1 text-sm text-slate-600">Send your first text to your customers in four short steps.</p>
              <div className="mt-4 flex flex-wrap justify-center gap-2">
                <Button variant="secondary" onClick={openCreate}>
                  Full Campaign Form
                </Button>
                <Button onClick={() => setWizardOpen(true)}>
                  New SMS Campaign
                </Button>
              </div>
            </>
          )}
        </Card>
      )}

      {total > PAGE_SIZE && (
        <Card>
          <Pagination page={page} pageSize={PAGE_SIZE} total={total} onPage={setPage} locale={user.locale} />
        </Card>
      )}

      {/* Mounted only while open, so each opening loads the current numbers, settings and counts. */}
      {editing && (
        <CampaignDialog
          campaign={editing.campaign}
          user={user}
          onClose={() => setEditing(null)}
          onSaved={() => void list.reload()}
        />
      )}
      {confirming && (
        <ConfirmDialog
          title={confirming.title}
          confirmLabel={confirming.label}
          onClose={() => setConfirming(null)}
          onConfirm={async () => {
            await confirming.run();
            setConfirming(null);
          }}
        >
          {typeof confirming.text === "string" ? <p>{confirming.text}</p> : confirming.text}
        </ConfirmDialog>
      )}
      {wizardOpen && (
        <CampaignWizard
          key={`${wizard?.type}:${wizard?.message}:${wizard?.contact?.id}:${wizard?.segmentId}:${wizard?.media?.map((m) => m.id).join(",")}`}
          onClose={closeWizard}
          onSent={() => void list.reload()}
          user={user}
          prefill={wizard}
        />
      )}
      {details && (
        <DetailsDialog
          campaign={details}
          user={user}
          onClose={() => setDetails(null)}
          onEdit={(c) => {
            setDetails(null);
            setEditing({ campaign: c });
          }}
        />
      )}
    </div>
  );
}

/**
 * /simple-campaign-wizard: the campaign screen opened on the wizard, prefilled from `?message=` and `?type=`,
 * addressed to one contact with `?contactId=&name=` (a contact's "Send Message") or to a saved segment with
 * `?segmentId=` (a segment's "Send to this segment").
 */
export function CampaignWizardPage() {
  const search = wizardRoute.useSearch();
  const message = search.message?.slice(0, MAX_MESSAGE);
  const type = search.type;
  const contact = search.contactId ? { id: search.contactId, name: search.name ?? "" } : undefined;
  const segmentId = search.segmentId;
  // Copies of a template's attachments, handed over by "Use This Template" in the history entry's state.
  const media = useRouterState({ select: (s) => s.location.state.attachments });
  const [prefill, setPrefill] = useState<WizardPrefill>({ message, type, contact, segmentId, media });
  useEffect(
    () =>
      setPrefill((p) =>
        p.message === message && p.type === type && p.contact?.id === contact?.id && p.segmentId === segmentId && p.media === media
          ? p
          : { message, type, contact, segmentId, media },
      ),
    [message, type, contact?.id, segmentId, media],
  );
  return <CampaignsPage wizard={prefill} />;
}

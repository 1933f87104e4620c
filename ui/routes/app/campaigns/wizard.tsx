import { useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { formatDate } from "../../../../shared/users/regional-options";
import type { Attachment } from "../../../components/attachment-picker";
import { emptyPhone, regionOfLocale } from "../../../components/phone-input";
import { Button, Spinner } from "../../../components/ui";
import { createCampaign, saveCampaign, sendCampaign } from "../../../api/campaigns";
import { useSegments } from "../../../api/segments";
import { ApiError } from "../../../lib/api";
import type { User } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { LargeDialog } from "./dialog";
import { campaignName, formatDateTime, zonedInputToIso, type Audience, type PresetAudience } from "./model";
import { startedDescription, useDeliveryPreview } from "./delivery-preview";
import { useAudienceCounts, useSendingSettings, useSenders } from "./senders";
import { typeLabel, type CampaignType } from "./wizard-samples";
import { LINK_DEFAULTS, linkBody } from "./link-options";
import { abMissing, abTestBody, NO_AB_TEST } from "./ab-test-fields";
import { AudienceStep, MessageStep, ReviewStep, singlePhone, StepList, STEPS, TypeStep, type WizardDraft } from "./wizard-steps";

/** What the wizard opens with: a message and type (a template), one contact, or a segment ("Send to this segment"). */
/** `media`: attachments the wizard opens with (copies of a template's, from "Use This Template"). */
export type WizardPrefill = { message?: string; type?: CampaignType; contact?: { id: string; name: string }; segmentId?: string; media?: Attachment[] };

/** What step `step` still needs before Continue; null when it is complete. */
function missing(step: number, d: WizardDraft, hasNumbers: boolean, timeZone: string): string | null {
  if (step === 0 && !d.type) return "Choose a campaign type.";
  if (step === 1) {
    if (!d.message.trim()) return "Write your message.";
    if (hasNumbers && !d.fromNumber) return "Choose the number to send from.";
    const ab = abMissing(d.abTest, d.message, d.shortenLinks);
    if (ab) return ab;
  }
  if (step === 2) {
    if (!d.audience) return "Choose who receives the message.";
    if (d.audience === "single" && !singlePhone(d.singleContactPhone)) return "Enter a valid phone number.";
    if (d.audience === "custom" && d.selectedContacts.size === 0) return "Choose at least one contact.";
    if (d.audience === "segment" && !d.segmentId) return "Choose a segment.";
    if (d.sendTime === "later") {
      const at = zonedInputToIso(d.scheduledTime, timeZone);
      if (!at) return "Choose when to send.";
      if (new Date(at).getTime() <= Date.now()) return "Choose a time in the future.";
    }
  }
  return null;
}

function audienceOf(d: WizardDraft): { audience: Audience; recipients: string[] } {
  if (d.audience === "single") return { audience: { kind: "manual" }, recipients: [singlePhone(d.singleContactPhone)!] };
  if (d.audience === "custom")
    return { audience: { kind: "contacts", contactIds: [...d.selectedContacts.keys()] }, recipients: [] };
  if (d.audience === "segment") return { audience: { kind: "segment", segmentId: d.segmentId }, recipients: [] };
  return { audience: { kind: d.audience as PresetAudience }, recipients: [] };
}

/** "Create New Campaign" (mounted while open): type, message, audience and time, review, then create and send. */
export function CampaignWizard({
  onClose,
  onSent,
  user,
  prefill,
}: {
  onClose: () => void;
  onSent: () => void;
  user: User;
  prefill?: WizardPrefill;
}) {
  const navigate = useNavigate();
  const senders = useSenders();
  const counts = useAudienceCounts();
  const segmentsApi = useSegments();
  const segments = { data: segmentsApi.data?.data ?? [], loading: segmentsApi.loading, error: segmentsApi.error };
  const settings = useSendingSettings();
  const optOutDefault = settings.loading && !settings.data ? null : settings.data?.appendOptOut !== false;
  const region = regionOfLocale(user.locale) ?? "US";
  const initial = (): WizardDraft => ({
    type: prefill?.type ?? null,
    message: prefill?.message ?? "",
    audience: prefill?.contact ? "custom" : prefill?.segmentId ? "segment" : null,
    segmentId: prefill?.segmentId ?? "",
    sendTime: "now",
    scheduledTime: "",
    selectedContacts: new Map(prefill?.contact ? [[prefill.contact.id, prefill.contact.name]] : []),
    singleContactPhone: emptyPhone(region),
    singleContactName: "",
    fromNumber: senders.defaultNumber,
    appendOptOut: optOutDefault ?? true,
    media: prefill?.media ?? [],
    ...LINK_DEFAULTS,
    abTest: NO_AB_TEST,
  });
  const [draft, setDraft] = useState<WizardDraft>(initial);
  const [step, setStep] = useState(prefill?.type ? 1 : 0);
  // A send that failed after creating the campaign left a draft: the next try updates and sends that one.
  const [createdId, setCreatedId] = useState<string | null>(null);

  useEffect(() => {
    if (senders.defaultNumber) setDraft((d) => (d.fromNumber ? d : { ...d, fromNumber: senders.defaultNumber }));
  }, [senders.defaultNumber]);
  useEffect(() => {
    if (optOutDefault !== null) setDraft((d) => ({ ...d, appendOptOut: optOutDefault }));
  }, [optOutDefault]);

  const set = (patch: Partial<WizardDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const hasNumbers = senders.numbers.length > 0;
  const blocker = missing(step, draft, hasNumbers, user.timezone);

  const recipientCount = (): number | null => {
    if (draft.audience === "single") return 1;
    if (draft.audience === "custom") return draft.selectedContacts.size;
    if (draft.audience === "segment") return segments.data.find((s) => s.id === draft.segmentId)?.contactCount ?? null;
    if (!draft.audience) return 0;
    return counts.data ? counts.data[draft.audience] : null;
  };

  /** For one person with a name, the name is written into the message itself. */
  const named = (text: string) =>
    draft.audience === "single" && draft.singleContactName.trim() ? text.replaceAll("[Name]", draft.singleContactName.trim()) : text;
  const finalContent = () => named(draft.message);
  // An A/B test's other variants, written for the one person the same way.
  const finalAbTest = { ...draft.abTest, variants: draft.abTest.variants.map(named) };

  const scheduledAt = draft.sendTime === "later" ? zonedInputToIso(draft.scheduledTime, user.timezone) : null;
  // While writing, the preview reads as the first of all customers would get it; at review, as the chosen audience's first.
  const delivery = useDeliveryPreview(
    (step === 1 || step === 3) && draft.message.trim()
      ? {
          ...(step === 3 && draft.audience ? audienceOf(draft) : { audience: { kind: "all" as const }, recipients: [] }),
          content: finalContent(),
          appendOptOut: draft.appendOptOut,
          scheduledAt,
          fromNumber: draft.fromNumber || null,
          attachments: draft.media.length,
          shortenLinks: draft.shortenLinks,
          abTest: draft.abTest.enabled ? { variants: [finalContent(), ...finalAbTest.variants], testPercent: draft.abTest.testPercent } : null,
        }
      : null,
  );

  const noRecipients = {
    title: "No recipients selected",
    description: "Please select at least one recipient to send the campaign.",
    variant: "destructive",
  } as const;
  // Created (or saved, on a second try) and sent; the list behind is read again whether the send went through or not.
  const delivering = useMutation(
    async () => {
      try {
        const { audience, recipients } = audienceOf(draft);
        const body = {
          name: campaignName(typeLabel(draft.type ?? ""), formatDate(new Date(), user.dateFormat, user.timezone)),
          type: "sms",
          status: "draft",
          content: finalContent(),
          audience,
          recipients,
          fromNumber: draft.fromNumber || null,
          appendOptOut: draft.appendOptOut,
          mediaIds: draft.media.map((m) => m.id),
          ...linkBody(draft),
          abTest: abTestBody(finalAbTest, finalContent()),
        };
        let id = createdId;
        if (id) await saveCampaign(id, body);
        else {
          const created = await createCampaign(body);
          id = created.id ?? created.data?.id ?? null;
          if (!id) throw new ApiError(500, "Failed to get campaign ID from response");
          setCreatedId(id);
        }
        return await sendCampaign(id, scheduledAt, !!delivery.data?.registration);
      } finally {
        onSent();
      }
    },
    {
      onSuccess: () => {
        onClose();
        void navigate({ to: "/sent-messages" });
      },
      success: (result) =>
        scheduledAt && result.campaign?.status === "scheduled"
          ? {
              title: "Campaign scheduled",
              description: `Your message will be sent on ${formatDateTime(scheduledAt, user.locale, user.timezone)}.`,
            }
          : { title: "Campaign started", description: startedDescription(result, delivery.data) },
      fallback: "Something went wrong. Please try again.",
      failureToast: (message, err) =>
        err instanceof ApiError && err.code === "no_recipients"
          ? noRecipients
          : { title: "Failed to send campaign", description: message, variant: "destructive" },
    },
  );
  const sending = delivering.busy;
  const send = () => {
    if (recipientCount() === 0) toast(noRecipients);
    else void delivering.run();
  };

  const last = step === STEPS.length - 1;
  return (
    <LargeDialog
      open
      onClose={sending ? () => {} : onClose}
      title="Create New Campaign"
      subtitle={<StepList step={step} onGo={(i) => i < step && setStep(i)} />}
      footer={
        <div className="flex w-full flex-wrap items-center justify-between gap-2">
          <p className="text-sm text-slate-500" aria-live="polite">
            {blocker}
          </p>
          <div className="flex gap-2">
            <Button variant="secondary" disabled={step === 0 || sending} onClick={() => setStep((s) => s - 1)}>
              Back
            </Button>
            {last ? (
              <Button disabled={sending} onClick={send}>
                {sending && <Spinner />}
                {draft.sendTime === "later" ? "Schedule Campaign" : "Send Campaign"}
              </Button>
            ) : (
              <Button disabled={!!blocker} onClick={() => setStep((s) => s + 1)}>
                Continue
              </Button>
            )}
          </div>
        </div>
      }
    >
      {step === 0 && <TypeStep value={draft.type} onChange={(type) => set({ type })} />}
      {step === 1 && <MessageStep draft={draft} set={set} senders={senders} delivery={delivery} />}
      {step === 2 && <AudienceStep draft={draft} set={set} counts={counts} segments={segments} user={user} />}
      {step === 3 && (
        <ReviewStep
          draft={draft}
          content={finalContent()}
          recipients={delivery.data?.total ?? recipientCount()}
          senders={senders}
          segmentName={segments.data.find((s) => s.id === draft.segmentId)?.name ?? null}
          delivery={delivery}
          user={user}
        />
      )}
    </LargeDialog>
  );
}

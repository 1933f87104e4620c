import { useLinkDomain } from "../../../api/users";
import { useEffect, useState } from "react";
import { Button, Field, Input, Spinner } from "../../../components/ui";
import { createCampaign, saveCampaign, sendCampaign } from "../../../api/campaigns";
import { ApiError, errorMessage } from "../../../lib/api";
import type { User } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { useMutation } from "../../../lib/use-mutation";
import { LargeDialog } from "./dialog";
import { formatDateTime, isoToZonedInput, isValidPhone, zonedInputToIso, type Campaign } from "./model";
import { emptyRecipients, recipientsStateOf, RecipientsTabs, resolveRecipients, type RecipientsState } from "./recipients-tabs";
import { DeliveryNote, MessagePreview, startedDescription, useDeliveryPreview, type DeliveryPreview } from "./delivery-preview";
import { CostEstimate } from "./cost-estimate";
import { SegmentCounter } from "./segment-counter";
import { MergeFieldInserter } from "../templates/merge-fields";
import { TemplatePicker } from "../templates/template-picker";
import { SenderSelect, useOptOutDefault, useSenders } from "./senders";
import { AttachmentPicker, type Attachment } from "../../../components/attachment-picker";
import { LINK_DEFAULTS, linkBody, LinkOptions, type LinkFields } from "./link-options";

const MAX_CONTENT = 1600;

type Form = LinkFields & {
  name: string;
  content: string;
  fromNumber: string;
  schedule: string;
  appendOptOut: boolean;
  recipients: RecipientsState;
  /** Pictures and files (issue 33): with any, each message is an MMS. */
  media: Attachment[];
};
type Errors = Partial<Record<"name" | "content" | "fromNumber" | "schedule" | "recipients", string>>;

/** Sends (or schedules) a saved campaign and tells the user what happened. */
/** Rethrows a step's failure with "Failed to <what>" when the server gave no reason. */
const failedTo = (what: string) => (err: unknown): never => {
  throw new Error(errorMessage(err, `Failed to ${what}`));
};

async function sendAndTell(id: string, scheduledAt: string | null, user: User, delivery: DeliveryPreview | null) {
  const result = await sendCampaign(id, scheduledAt, !!delivery?.registration);
  if (result.campaign?.status === "scheduled" && scheduledAt) {
    // Nothing is queued until the time comes: say when, and how many it will go to.
    const total = delivery ? ` to ${delivery.total} recipient${delivery.total === 1 ? "" : "s"}` : "";
    toast({
      title: "Campaign scheduled",
      description: `It will be sent${total} on ${formatDateTime(scheduledAt, user.locale, user.timezone)}.`,
    });
  } else {
    toast({ title: "Campaign started", description: startedDescription(result, delivery) });
  }
}

/** "Create Campaign" / "Edit Campaign" (mounted while open): Save as Draft, or create and send in one go. */
export function CampaignDialog({
  campaign,
  user,
  onClose,
  onSaved,
}: {
  campaign: Campaign | null;
  user: User;
  onClose: () => void;
  onSaved: () => void;
}) {
  const senders = useSenders();
  const optOutDefault = useOptOutDefault();
  const [form, setForm] = useState<Form>(() =>
    campaign
      ? {
          name: campaign.name,
          content: campaign.content,
          fromNumber: campaign.fromNumber ?? "",
          schedule: campaign.scheduledAt ? isoToZonedInput(campaign.scheduledAt, user.timezone) : "",
          appendOptOut: campaign.appendOptOut,
          recipients: recipientsStateOf(campaign.audience, campaign.recipients),
          shortenLinks: campaign.shortenLinks,
          utmSource: campaign.utmSource ?? "",
          utmMedium: campaign.utmMedium ?? "",
          utmCampaign: campaign.utmCampaign ?? "",
          linkExpiryDays: String(campaign.linkExpiryDays),
          media: campaign.media,
        }
      : { name: "", content: "", fromNumber: "", schedule: "", appendOptOut: true, recipients: emptyRecipients(), ...LINK_DEFAULTS, media: [] },
  );
  const [errors, setErrors] = useState<Errors>({});
  // Once created, later clicks update the same campaign instead of creating another.
  const [savedId, setSavedId] = useState<string | null>(campaign?.id ?? null);

  // A new campaign takes the account's defaults once they load: the default number and the opt-out setting.
  useEffect(() => {
    if (!campaign && senders.defaultNumber) setForm((f) => (f.fromNumber ? f : { ...f, fromNumber: senders.defaultNumber }));
  }, [campaign, senders.defaultNumber]);
  useEffect(() => {
    if (!campaign && optOutDefault !== null) setForm((f) => ({ ...f, appendOptOut: optOutDefault }));
  }, [campaign, optOutDefault]);

  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));

  const resolvedNow = resolveRecipients(form.recipients);
  const scheduledNow = form.schedule ? zonedInputToIso(form.schedule, user.timezone) : null;
  const accountLinkDomain = useLinkDomain();
  const linkDomain = form.shortenLinks ? accountLinkDomain : null;
  const delivery = useDeliveryPreview(
    resolvedNow.empty || (resolvedNow.audience.kind === "manual" && resolvedNow.recipients.some((r) => !isValidPhone(r)))
      ? null
      : {
          audience: resolvedNow.audience,
          recipients: resolvedNow.recipients,
          content: form.content,
          appendOptOut: form.appendOptOut,
          scheduledAt: scheduledNow,
          fromNumber: form.fromNumber || null,
          shortenLinks: form.shortenLinks,
          attachments: form.media.length,
        },
  );

  const submit = (mode: "draft" | "send") => {
    const resolved = resolveRecipients(form.recipients);
    const scheduledAt = form.schedule ? zonedInputToIso(form.schedule, user.timezone) : null;
    const next: Errors = {};
    if (!form.name.trim()) next.name = "Campaign name is required";
    if (!form.content.trim()) next.content = "Content is required";
    if (resolved.empty) next.recipients = "Recipients are required";
    if (form.schedule && (!scheduledAt || new Date(scheduledAt).getTime() <= Date.now()))
      next.schedule = "Please choose a time in the future";
    if (mode === "send" && !form.fromNumber) next.fromNumber = "SMS campaigns require a from number";
    setErrors(next);
    if (Object.keys(next).length) {
      if (next.fromNumber) toast({ title: "Error", description: next.fromNumber, variant: "destructive" });
      return;
    }
    if (resolved.recipients.some((r) => !isValidPhone(r))) {
      const bad = resolved.recipients.filter((r) => !isValidPhone(r));
      setErrors({
        recipients: `Not a valid phone number: ${bad.slice(0, 3).join(", ")}${bad.length > 3 ? ` and ${bad.length - 3} more` : ""}`,
      });
      toast({ title: "Invalid Recipients", description: "Please enter valid phone numbers", variant: "destructive" });
      return;
    }

    const body = {
      name: form.name.trim(),
      type: "sms",
      content: form.content,
      recipients: resolved.recipients,
      audience: resolved.audience,
      fromNumber: form.fromNumber || null,
      subject: null,
      fromEmail: null,
      fromName: null,
      scheduledAt,
      appendOptOut: form.appendOptOut,
      ...linkBody(form),
      mediaIds: form.media.map((m) => m.id),
    };
    void submitting.run(mode, body, scheduledAt);
  };

  // Saved (created the first time), then sent or scheduled; each step's failure in its own words. The list is read
  // again once the campaign exists, whether the send went through or not.
  const submitting = useMutation(
    async (mode: "draft" | "send", body: object, scheduledAt: string | null) => {
      let id = savedId;
      if (id) await saveCampaign(id, body).catch(failedTo("update campaign"));
      else {
        const created = await createCampaign(body).catch(failedTo("create campaign"));
        id = created.id ?? created.data?.id ?? null;
        if (!id) throw new ApiError(500, "Failed to get campaign ID from response");
        setSavedId(id);
      }
      try {
        if (mode === "send") await sendAndTell(id, scheduledAt, user, delivery.data).catch(failedTo("send campaign"));
        else toast({ title: savedId ? "Campaign updated successfully" : "Campaign created successfully" });
        onClose();
      } finally {
        onSaved();
      }
    },
    { failureToast: "Error" },
  );
  const busy = submitting.args?.[0] ?? null;

  const editing = !!campaign;
  return (
    <LargeDialog
      open
      onClose={busy ? () => {} : onClose}
      title={editing ? "Edit Campaign" : "Create Campaign"}
      subtitle="An SMS campaign to a list of numbers or to your contacts"
      footer={
        <>
          <Button variant="ghost" disabled={!!busy} onClick={onClose}>
            Cancel
          </Button>
          <Button variant="secondary" disabled={!!busy} onClick={() => submit("draft")}>
            {busy === "draft" && <Spinner />}
            Save as Draft
          </Button>
          <Button disabled={!!busy} onClick={() => submit("send")}>
            {busy === "send" && <Spinner />}
            {form.schedule ? "Schedule Campaign" : "Send Campaign"}
          </Button>
        </>
      }
    >
      <form className="space-y-4" noValidate onSubmit={(e) => e.preventDefault()}>
        <Field label="Campaign name" htmlFor="campaign-name">
          <Input
            id="campaign-name"
            value={form.name}
            maxLength={200}
            placeholder="Spring sale"
            aria-invalid={!!errors.name}
            onChange={(e) => set({ name: e.target.value })}
          />
          {errors.name && <FieldError text={errors.name} />}
        </Field>

        <Field label="Message" htmlFor="campaign-content">
          <textarea
            id="campaign-content"
            rows={5}
            maxLength={MAX_CONTENT}
            value={form.content}
            aria-invalid={!!errors.content}
            placeholder="Hi [Name], our spring sale starts today: 20% off everything until Sunday."
            onChange={(e) => set({ content: e.target.value })}
            className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
          />
          <div className="flex flex-wrap items-center gap-2">
            <TemplatePicker
              onPick={(t) => set({ content: t.content.slice(0, MAX_CONTENT), ...(t.attachments.length ? { media: [...form.media, ...t.attachments].slice(0, 5) } : {}) })}
            />
            <MergeFieldInserter idPrefix="campaign" onInsert={(token) => set({ content: `${form.content}${token}`.slice(0, MAX_CONTENT) })} />
          </div>
          <div className="flex flex-wrap items-start justify-between gap-2">
            <SegmentCounter content={form.content} appendOptOut={form.appendOptOut} longest={delivery.data?.longest} linkDomain={linkDomain} />
            <span className="text-xs text-slate-500">
              {form.content.length}/{MAX_CONTENT}
            </span>
          </div>
          <label className="flex items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" checked={form.appendOptOut} onChange={(e) => set({ appendOptOut: e.target.checked })} />
            Add the opt-out line “Reply STOP to opt out”
          </label>
          <LinkOptions value={form} onChange={set} domain={accountLinkDomain} />
          {errors.content && <FieldError text={errors.content} />}
        </Field>

        <Field label="Pictures and files (MMS)" htmlFor="campaign-attach">
          <AttachmentPicker value={form.media} onChange={(media) => set({ media })} disabled={!!busy} />
          {delivery.data?.mms?.refusal && (
            <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" data-testid="mms-refusal">
              {delivery.data.mms.refusal}
            </p>
          )}
        </Field>

        <div className="grid gap-4 sm:grid-cols-[3fr_2fr]">
          <Field label="From number" htmlFor="campaign-from">
            <SenderSelect
              id="campaign-from"
              senders={senders}
              value={form.fromNumber}
              onChange={(fromNumber) => set({ fromNumber })}
            />
            {errors.fromNumber && <FieldError text={errors.fromNumber} />}
          </Field>
          <Field
            label="Schedule for (optional)"
            htmlFor="campaign-schedule"
            hint={`Time zone: ${user.timezone}. Leave empty to send now.`}
          >
            <Input
              id="campaign-schedule"
              type="datetime-local"
              value={form.schedule}
              onChange={(e) => set({ schedule: e.target.value })}
            />
            {errors.schedule && <FieldError text={errors.schedule} />}
          </Field>
        </div>

        <RecipientsTabs
          value={form.recipients}
          onChange={(recipients) => set({ recipients })}
          locale={user.locale}
          error={errors.recipients}
        />

        {form.content.trim() && !resolvedNow.empty && (
          <div className="space-y-2" data-testid="dialog-preview">
            <p className="text-sm font-medium text-slate-700">Preview</p>
            <MessagePreview preview={delivery.data} draft={form.content} />
            <DeliveryNote
              preview={delivery.data}
              loading={delivery.loading}
              error={delivery.error}
              locale={user.locale}
              scheduled={!!form.schedule}
            />
            <p className="text-sm text-slate-700">
              Estimated cost:{" "}
              <CostEstimate
                fromNumber={form.fromNumber}
                totalSegments={delivery.data?.longest?.totalSegments ?? null}
                senders={senders}
                locale={user.locale}
                mmsMessages={form.media.length ? (delivery.data?.mms?.messages ?? null) : null}
              />
            </p>
          </div>
        )}
      </form>
    </LargeDialog>
  );
}

export function FieldError({ text }: { text: string }) {
  return (
    <p role="alert" className="text-sm text-red-600">
      {text}
    </p>
  );
}

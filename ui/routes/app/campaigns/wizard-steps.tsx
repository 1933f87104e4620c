import { parsePhoneNumberFromString } from "libphonenumber-js";
import type { ReactNode } from "react";
import { PhoneInput, phoneToSubmit, type PhoneValue } from "../../../components/phone-input";
import { Button, cx, Field, Input, Select, Spinner } from "../../../components/ui";
import type { SegmentView } from "../../../api/segments";
import type { User } from "../../../lib/auth";
import { formatNumber } from "../../../lib/format";
import { AudienceOption, ContactPicker, type ChosenContacts } from "./contact-picker";
import { formatPhone } from "../contacts/model";
import { DeliveryNote, MessagePreview, type useDeliveryPreview } from "./delivery-preview";
import { formatDateTime, measureSms, PRESET_AUDIENCES, zonedInputToIso, type PresetAudience } from "./model";
import { CostEstimate } from "./cost-estimate";
import { SegmentCounter, useMeasuredSms } from "./segment-counter";
import { useLinkDomain } from "../../../api/users";
import { TemplatePicker } from "../templates/template-picker";
import { SenderSelect, type useAudienceCounts, type useSenders } from "./senders";
import { linkBody, LinkOptions, type LinkFields } from "./link-options";
import { findLinks } from "../../../../shared/links/text";
import { CAMPAIGN_TYPES, typeLabel, type CampaignType } from "./wizard-samples";
import { AttachmentPicker, type Attachment } from "../../../components/attachment-picker";
import { abSummary, AbTestFields, type AbDraft } from "./ab-test-fields";

export const MAX_MESSAGE = 300;
export const STEPS = ["Choose Type", "Write Message", "Select Audience", "Review & Send"] as const;

type AudienceChoice = PresetAudience | "segment" | "custom" | "single";

/** Everything the wizard collects before it creates and sends the campaign (its links' options as the dialog's). */
export type WizardDraft = LinkFields & {
  type: CampaignType | null;
  message: string;
  audience: AudienceChoice | null;
  /** The saved segment chosen when the audience is "segment". */
  segmentId: string;
  sendTime: "now" | "later";
  scheduledTime: string;
  selectedContacts: ChosenContacts;
  singleContactPhone: PhoneValue;
  singleContactName: string;
  fromNumber: string;
  appendOptOut: boolean;
  /** Pictures and files (issue 33): with any, each message is an MMS. */
  media: Attachment[];
  /** An A/B test of the message (variant A) against 1 to 3 others (issue 32 item 3). */
  abTest: AbDraft;
};

/** The one recipient's number in E.164, or null while it is not a valid number. */
export const singlePhone = (v: PhoneValue) => {
  const e164 = phoneToSubmit(v);
  return e164 && parsePhoneNumberFromString(e164)?.isValid() ? e164 : null;
};

export function StepList({ step, onGo }: { step: number; onGo: (i: number) => void }) {
  return (
    <ol className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Steps">
      {STEPS.map((label, i) => (
        <li key={label} aria-current={i === step ? "step" : undefined}>
          <button
            type="button"
            disabled={i >= step}
            onClick={() => onGo(i)}
            className={cx(
              "flex items-center gap-1.5",
              i === step ? "font-semibold text-brand-700" : i < step ? "text-slate-700 hover:underline" : "text-slate-400",
            )}
          >
            <span
              aria-hidden
              className={cx(
                "flex h-5 w-5 items-center justify-center rounded-full text-[11px]",
                i < step ? "bg-brand-600 text-white" : i === step ? "border-2 border-brand-600" : "border border-slate-300",
              )}
            >
              {i < step ? "✓" : i + 1}
            </span>
            {label}
          </button>
        </li>
      ))}
    </ol>
  );
}

export function TypeStep({ value, onChange }: { value: CampaignType | null; onChange: (t: CampaignType) => void }) {
  return (
    <div className="space-y-3">
      <h3 className="font-medium">What kind of message is it?</h3>
      <div role="radiogroup" aria-label="Campaign type" className="grid gap-3 sm:grid-cols-2">
        {CAMPAIGN_TYPES.map((t) => (
          <button
            key={t.id}
            type="button"
            role="radio"
            aria-checked={value === t.id}
            onClick={() => onChange(t.id)}
            className={cx(
              "rounded-xl border p-4 text-left transition-colors",
              value === t.id
                ? "border-brand-500 bg-brand-50 ring-2 ring-brand-500/30"
                : "border-slate-200 hover:border-slate-300 hover:bg-slate-50",
            )}
          >
            <span className="block font-semibold">{t.label}</span>
            <span className="block text-sm text-slate-600">{t.description}</span>
          </button>
        ))}
      </div>
    </div>
  );
}

export type SetDraft = (patch: Partial<WizardDraft>) => void;

type Delivery = ReturnType<typeof useDeliveryPreview>;

export function MessageStep({
  draft,
  set,
  senders,
  delivery,
}: {
  draft: WizardDraft;
  set: SetDraft;
  senders: ReturnType<typeof useSenders>;
  delivery: Delivery;
}) {
  const samples = CAMPAIGN_TYPES.find((t) => t.id === draft.type)?.samples ?? [];
  // Against what one unsplit text holds, counted as it will be sent (opt-out line, merge fields filled): the
  // characters typed alone once read 113/160 beside "2 segments".
  const accountLinkDomain = useLinkDomain();
  // Counted as sent: with the switch on, each link as a short link of the account's domain.
  const linkDomain = draft.shortenLinks ? accountLinkDomain : null;
  const measured = useMeasuredSms(draft.message, draft.appendOptOut, delivery.data?.longest, linkDomain);
  const tooLong = measured.segments > 1;
  const insert = (token: string) =>
    set({ message: `${draft.message}${draft.message && !draft.message.endsWith(" ") ? " " : ""}${token}`.slice(0, MAX_MESSAGE) });
  return (
    <div className="space-y-4">
      {samples.length > 0 && (
        <div>
          <h3 className="text-sm font-medium text-slate-700">Start from a sample</h3>
          <ul className="mt-2 grid gap-2 sm:grid-cols-2">
            {samples.map((s, i) => (
              <li key={s}>
                <button
                  type="button"
                  aria-label={`Use sample message ${i + 1}`}
                  onClick={() => set({ message: s })}
                  className={cx(
                    "h-full w-full rounded-lg border p-3 text-left text-sm text-slate-700 hover:bg-slate-50",
                    draft.message === s ? "border-brand-500 bg-brand-50/50" : "border-slate-200",
                  )}
                >
                  {s}
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}

      <Field label="Your message" htmlFor="wizard-message">
        <textarea
          id="wizard-message"
          rows={4}
          maxLength={MAX_MESSAGE}
          value={draft.message}
          onChange={(e) => set({ message: e.target.value })}
          className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30"
        />
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div className="flex gap-2">
            <Button variant="secondary" className="!px-2 !py-1 text-xs" onClick={() => insert("[Name]")}>
              Insert [Name]
            </Button>
            <Button variant="secondary" className="!px-2 !py-1 text-xs" onClick={() => insert("[Business]")}>
              Insert [Business]
            </Button>
            <TemplatePicker
              onPick={(t) => set({ message: t.content.slice(0, MAX_MESSAGE), ...(t.attachments.length ? { media: [...draft.media, ...t.attachments].slice(0, 5) } : {}) })}
            />
          </div>
          <span
            data-testid="message-length"
            className={cx("text-xs", tooLong ? "font-medium text-red-600" : "text-slate-500")}
          >
            {measured.characters}/{measured.single}
            {tooLong && " Too long"}
          </span>
        </div>
        <SegmentCounter content={draft.message} appendOptOut={draft.appendOptOut} longest={delivery.data?.longest} linkDomain={linkDomain} />
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" checked={draft.appendOptOut} onChange={(e) => set({ appendOptOut: e.target.checked })} />
          Add the opt-out line “Reply STOP to opt out”
        </label>
        <LinkOptions value={draft} onChange={set} domain={accountLinkDomain} />
      </Field>

      <Field label="Pictures and files (MMS)" htmlFor="wizard-attach">
        <AttachmentPicker value={draft.media} onChange={(media) => set({ media })} />
        <MmsRefusal delivery={delivery} />
      </Field>

      <AbTestFields ab={draft.abTest} appendOptOut={draft.appendOptOut} linkDomain={linkDomain} onChange={(abTest) => set({ abTest })} />

      {draft.message && (
        <div>
          <p className="text-sm font-medium text-slate-700">Preview</p>
          <MessagePreview preview={delivery.data} draft={draft.message} testId="message-preview" />
        </div>
      )}

      <Field label="Send from" htmlFor="wizard-from">
        <SenderSelect
          id="wizard-from"
          senders={senders}
          value={draft.fromNumber}
          onChange={(fromNumber) => set({ fromNumber })}
        />
      </Field>
    </div>
  );
}

/** The account's saved segments as the wizard reads them (useSegments). */
export type SegmentList = { data: SegmentView[]; loading: boolean; error: Error | null };

export function AudienceStep({
  draft,
  set,
  counts,
  segments,
  user,
}: {
  draft: WizardDraft;
  set: SetDraft;
  counts: ReturnType<typeof useAudienceCounts>;
  segments: SegmentList;
  user: User;
}) {
  const locale = user.locale;
  const chosenSegment = segments.data.find((s) => s.id === draft.segmentId);
  return (
    <div className="space-y-5">
      <div className="space-y-2" role="radiogroup" aria-label="Audience">
        <h3 className="font-medium">Who should receive it?</h3>
        {counts.error && <p className="text-sm text-red-600">Could not count your contacts: {counts.error.message}</p>}
        {PRESET_AUDIENCES.map((a) => (
          <AudienceOption
            key={a.kind}
            name="wizard-audience"
            checked={draft.audience === a.kind}
            onSelect={() => set({ audience: a.kind })}
            label={a.label}
            description={a.description}
            count={counts.data ? counts.data[a.kind] : counts.error ? undefined : null}
            locale={locale}
          />
        ))}
        <AudienceOption
          name="wizard-audience"
          checked={draft.audience === "segment"}
          onSelect={() => set({ audience: "segment" })}
          label="A segment"
          description="Contacts matching one of your saved segments"
          count={chosenSegment ? chosenSegment.contactCount : undefined}
          locale={locale}
        >
          {segments.error ? (
            <p className="text-sm text-red-600">Could not load your segments: {segments.error.message}</p>
          ) : segments.data.length === 0 ? (
            <p className="text-sm text-slate-600">
              {segments.loading ? "Loading segments…" : "You have no segments yet. Create one under Contact Segments."}
            </p>
          ) : (
            <Select aria-label="Segment" value={draft.segmentId} onChange={(e) => set({ segmentId: e.target.value })}>
              <option value="">Choose a segment…</option>
              {segments.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} ({formatNumber(s.contactCount, locale)})
                </option>
              ))}
            </Select>
          )}
        </AudienceOption>
        <AudienceOption
          name="wizard-audience"
          checked={draft.audience === "custom"}
          onSelect={() => set({ audience: "custom" })}
          label="Choose contacts"
          description="Pick people from your contact list"
          locale={locale}
        >
          <ContactPicker
            selected={draft.selectedContacts}
            onChange={(selectedContacts) => set({ selectedContacts })}
            locale={locale}
          />
        </AudienceOption>
        <AudienceOption
          name="wizard-audience"
          checked={draft.audience === "single"}
          onSelect={() => set({ audience: "single" })}
          label="One person"
          description="Send to a single phone number"
          locale={locale}
        >
          <div className="grid gap-3 sm:grid-cols-2">
            <Field label="Phone number" htmlFor="single-phone">
              <PhoneInput
                id="single-phone"
                value={draft.singleContactPhone}
                locale={locale}
                onChange={(singleContactPhone) => set({ singleContactPhone })}
              />
            </Field>
            <Field label="Name (optional)" htmlFor="single-name" hint="Fills [Name] in the message">
              <Input
                id="single-name"
                value={draft.singleContactName}
                onChange={(e) => set({ singleContactName: e.target.value })}
              />
            </Field>
          </div>
        </AudienceOption>
      </div>

      <fieldset className="space-y-2">
        <legend className="font-medium">When should it go out?</legend>
        <div className="flex flex-wrap gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name="wizard-when" checked={draft.sendTime === "now"} onChange={() => set({ sendTime: "now" })} />
            Send now
          </label>
          <label className="flex items-center gap-2">
            <input
              type="radio"
              name="wizard-when"
              checked={draft.sendTime === "later"}
              onChange={() => set({ sendTime: "later" })}
            />
            Schedule for later
          </label>
        </div>
        {draft.sendTime === "later" && (
          <Field label="Send at" htmlFor="wizard-schedule" hint={`Time zone: ${user.timezone}`}>
            <Input
              id="wizard-schedule"
              type="datetime-local"
              className="max-w-xs"
              value={draft.scheduledTime}
              onChange={(e) => set({ scheduledTime: e.target.value })}
            />
          </Field>
        )}
      </fieldset>
    </div>
  );
}

/** The sender's refusal of attachments (a provider that sends no MMS), as the delivery preview tells it. */
export function MmsRefusal({ delivery }: { delivery: Delivery }) {
  const refusal = delivery.data?.mms?.refusal;
  if (!refusal) return null;
  return (
    <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800" data-testid="mms-refusal">
      {refusal}
    </p>
  );
}

/** The review's line on links: shortened where (with the UTM parameters chosen) and for how long, or sent as written. */
function linksLabel(d: LinkFields, domain: string | null): string {
  if (!d.shortenLinks) return "Sent as written, clicks not counted";
  const utm = (
    [
      ["utm_source", d.utmSource],
      ["utm_medium", d.utmMedium],
      ["utm_campaign", d.utmCampaign],
    ] as const
  )
    .filter(([, v]) => v.trim())
    .map(([k, v]) => `${k}=${v.trim()}`);
  const days = linkBody(d).linkExpiryDays;
  return `Shortened${domain ? ` to ${domain}/l/…` : ""}, clicks counted${utm.length ? `, ${utm.join(", ")}` : ""}; they expire after ${days} day${days === 1 ? "" : "s"}`;
}

export function ReviewStep({
  draft,
  content,
  recipients,
  senders,
  segmentName,
  delivery,
  user,
}: {
  draft: WizardDraft;
  content: string;
  recipients: number | null;
  senders: ReturnType<typeof useSenders>;
  /** The chosen segment's name, when the audience is a segment. */
  segmentName: string | null;
  delivery: Delivery;
  user: User;
}) {
  const n = (v: number) => formatNumber(v, user.locale);
  const linkDomain = useLinkDomain();
  const segments = measureSms(content, draft.appendOptOut).segments;
  // The server's count of every recipient's rendered message (merge fields make them differ), as the cost estimate
  // reads it: the review once said 246 segments above a cost of 280.
  const longest = delivery.data?.longest;
  // An A/B test counts each variant at its own length and the rest at the longest's (the server's estimate).
  const ab = delivery.data?.abTest;
  const totalSegments = ab?.totalSegments ?? longest?.totalSegments ?? (recipients === null ? null : recipients * segments);
  const perRecipient = !longest ? `${segments}` : longest.totalSegments === longest.segments * (delivery.data?.total ?? 0) ? `${longest.segments}` : `up to ${longest.segments}`;
  const sender = senders.numbers.find((s) => s.phoneNumber === draft.fromNumber);
  const mms = draft.media.length > 0;
  const audienceLabel =
    draft.audience === "single"
      ? `${draft.singleContactName.trim() || "One person"} (${formatPhone(singlePhone(draft.singleContactPhone))})`
      : draft.audience === "custom"
        ? "Chosen contacts"
        : draft.audience === "segment"
          ? `Segment: ${segmentName ?? "—"}`
          : (PRESET_AUDIENCES.find((a) => a.kind === draft.audience)?.label ?? "");
  const when =
    draft.sendTime === "later"
      ? formatDateTime(zonedInputToIso(draft.scheduledTime, user.timezone), user.locale, user.timezone)
      : "Right away";
  const rows: [string, ReactNode][] = [
    ["Campaign type", typeLabel(draft.type ?? "")],
    [
      "Send from",
      sender
        ? `${sender.displayName ? `${sender.displayName} · ` : ""}${formatPhone(sender.phoneNumber) || sender.phoneNumber}`
        : "No sender number",
    ],
    ["Audience", audienceLabel],
    [
      "Recipients",
      recipients === null ? <Spinner className="text-slate-300" /> : `${n(recipients)} recipient${recipients === 1 ? "" : "s"}`,
    ],
    ["When", when],
    ...(findLinks(content).length ? ([["Links", linksLabel(draft, linkDomain)]] as [string, ReactNode][]) : []),
    ...(draft.abTest.enabled ? [["A/B test", abSummary(draft.abTest)] as [string, ReactNode]] : []),
    [
      "Messages",
      recipients === null
        ? "—"
        : mms
          ? `${n(recipients)} MMS (1 per recipient, with ${draft.media.length} attachment${draft.media.length === 1 ? "" : "s"}; opted-out contacts are skipped)`
        : ab
          ? `up to ${n(totalSegments!)} segment${totalSegments === 1 ? "" : "s"} (${ab.variants.map((v) => `${v.label}: ${v.segments}`).join(", ")} per recipient; the rest counted at the longest)`
          : `${n(totalSegments!)} segment${totalSegments === 1 ? "" : "s"} (${perRecipient} per recipient; opted-out contacts are skipped)`,
    ],
    ...(mms ? [["Attachments", draft.media.map((m) => m.filename).join(", ")] as [string, ReactNode]] : []),
    [
      "Estimated cost",
      <CostEstimate
        fromNumber={draft.fromNumber}
        totalSegments={totalSegments}
        senders={senders}
        locale={user.locale}
        mmsMessages={mms ? (delivery.data?.mms?.messages ?? recipients) : null}
      />,
    ],
  ];
  return (
    <div className="space-y-4">
      <h3 className="font-medium">Check everything, then {draft.sendTime === "later" ? "schedule" : "send"}</h3>
      <dl className="divide-y divide-slate-100 rounded-lg border border-slate-200 text-sm" data-testid="wizard-review">
        {rows.map(([label, value]) => (
          <div key={label} className="flex flex-wrap justify-between gap-2 px-4 py-2.5">
            <dt className="text-slate-500">{label}</dt>
            <dd className="text-right font-medium">{value}</dd>
          </div>
        ))}
      </dl>
      <div>
        <p className="text-sm font-medium text-slate-700">Message preview</p>
        <MessagePreview preview={delivery.data} draft={content} testId="review-preview" />
      </div>
      <MmsRefusal delivery={delivery} />
      <DeliveryNote
        preview={delivery.data}
        loading={delivery.loading}
        error={delivery.error}
        locale={user.locale}
        scheduled={draft.sendTime === "later"}
      />
      {recipients === 0 && (
        <p role="alert" className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          This audience has no subscribed contacts yet.
        </p>
      )}
    </div>
  );
}

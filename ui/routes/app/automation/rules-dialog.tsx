import { useState } from "react";
import * as rulesApi from "../../../api/automation";
import type { Rule, RuleInput } from "../../../api/automation";
import { Alert, Button, Field, Input, Modal, Select } from "../../../components/ui";
import { submitWith, useMutation } from "../../../lib/use-mutation";
import { CampaignSelect } from "../campaigns/campaign-select";

export const RULE_TRIGGERS: { value: string; label: string }[] = [
  { value: "opt_in", label: "Contact opts in" },
  { value: "keyword_received", label: "Keyword received" },
  { value: "reply", label: "Reply contains words" },
  { value: "contact_created", label: "Contact created (not by a CSV import)" },
  { value: "tag_added", label: "Tag added" },
  { value: "birthday", label: "Birthday" },
  { value: "inactive", label: "Inactive for N days" },
  { value: "purchase", label: "Purchase" },
  { value: "manual", label: "Manual" },
  { value: "link_clicked", label: "Link clicked (people only)" },
];

export const triggerLabel = (t: string) => RULE_TRIGGERS.find((x) => x.value === t)?.label ?? t;

const list = (s: string) =>
  s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** The form's state: text fields as typed, turned into the rule's body on save. */
type Form = {
  name: string;
  trigger: string;
  keyword: string;
  words: string;
  tag: string;
  field: string;
  hour: string;
  days: string;
  /** link_clicked: this campaign's links only ("" any short link). */
  campaignId: string;
  onlyTag: string;
  segmentId: string;
  sendMessage: string;
  /** The message's links go out as short links (issue 32); off: as written. */
  shortenLinks: boolean;
  addTags: string;
  removeTags: string;
  enrolDripId: string;
  removeDripId: string;
  emailOwner: string;
  optOut: boolean;
};

function formOf(r: Rule | null): Form {
  const c = (r?.triggerConfig ?? {}) as RuleInput["triggerConfig"];
  const a = (r?.actions ?? {}) as RuleInput["actions"];
  const tagCondition = (r?.conditions as RuleInput["conditions"] | undefined)?.tags?.eq;
  return {
    name: r?.name ?? "",
    trigger: r?.trigger ?? "keyword_received",
    keyword: c.keyword ?? "",
    words: (c.words ?? []).join(", "),
    tag: c.tag ?? "",
    field: c.field ?? "birthday",
    hour: String(c.hour ?? 9),
    days: String(c.days ?? 30),
    campaignId: c.campaignId ?? "",
    onlyTag: typeof tagCondition === "string" ? tagCondition : "",
    segmentId: r?.segmentId ?? "",
    sendMessage: a.sendMessage ?? "",
    shortenLinks: a.shortenLinks !== false,
    addTags: (a.addTags ?? []).join(", "),
    removeTags: (a.removeTags ?? []).join(", "),
    enrolDripId: a.enrolDripId ?? "",
    removeDripId: a.removeDripId ?? "",
    emailOwner: a.emailOwner ?? "",
    optOut: !!a.optOut,
  };
}

function bodyOf(f: Form, keep: Rule | null): RuleInput {
  const triggerConfig: RuleInput["triggerConfig"] = {};
  if ((f.trigger === "opt_in" || f.trigger === "keyword_received") && f.keyword.trim()) triggerConfig.keyword = f.keyword.trim();
  if (f.trigger === "reply") triggerConfig.words = list(f.words);
  if (f.trigger === "tag_added" && f.tag.trim()) triggerConfig.tag = f.tag.trim();
  if (f.trigger === "birthday") Object.assign(triggerConfig, { field: f.field.trim(), hour: Number(f.hour) });
  if (f.trigger === "inactive") triggerConfig.days = Number(f.days);
  if (f.trigger === "link_clicked" && f.campaignId) triggerConfig.campaignId = f.campaignId;
  // The dialog edits one tag condition; other conditions a rule was given through the API are kept as they are.
  const conditions = { ...((keep?.conditions ?? {}) as RuleInput["conditions"]) };
  delete conditions.tags;
  if (f.onlyTag.trim()) conditions.tags = { eq: f.onlyTag.trim() };
  const actions: RuleInput["actions"] = {};
  if (f.sendMessage.trim()) actions.sendMessage = f.sendMessage;
  if (f.sendMessage.trim() && !f.shortenLinks) actions.shortenLinks = false;
  if (list(f.addTags).length) actions.addTags = list(f.addTags);
  if (list(f.removeTags).length) actions.removeTags = list(f.removeTags);
  if (f.enrolDripId) actions.enrolDripId = f.enrolDripId;
  if (f.removeDripId) actions.removeDripId = f.removeDripId;
  if (f.emailOwner.trim()) actions.emailOwner = f.emailOwner;
  if (f.optOut) actions.optOut = true;
  return { name: f.name, trigger: f.trigger, triggerConfig, conditions, segmentId: f.segmentId || null, actions };
}

/** Create Automation Rule (or edit one): the trigger and its settings, the conditions, the actions. */
export function RuleDialog({ rule, onClose, onSaved }: { rule: Rule | null; onClose: () => void; onSaved: () => void }) {
  const [f, setF] = useState<Form>(() => formOf(rule));
  const saving = useMutation(
    () => {
      const body = bodyOf(f, rule);
      return rule ? rulesApi.saveRule(rule.id, body) : rulesApi.createRule(body);
    },
    { onSuccess: onSaved, fallback: "Could not save the rule" },
  );
  const { busy, error, setError } = saving;
  const segments = rulesApi.useSegmentChoices();
  const drips = rulesApi.useDripChoices();
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setF((x) => ({ ...x, [k]: v }));

  const save = () => {
    if (!f.name.trim()) return setError("Rule name is required");
    return saving.run();
  };

  const text = (id: keyof Form, label: string, hint?: string) => (
    <Field label={label} htmlFor={`rule-${id}`} hint={hint}>
      <Input id={`rule-${id}`} value={f[id] as string} onChange={(e) => set(id, e.target.value as never)} />
    </Field>
  );

  return (
    <Modal open onClose={onClose} title={rule ? "Edit Automation Rule" : "Create Automation Rule"}>
      <form onSubmit={submitWith(save)} className="space-y-3">
        {error && <Alert>{error}</Alert>}
        {text("name", "Rule name")}
        <Field label="Trigger" htmlFor="rule-trigger">
          <Select id="rule-trigger" value={f.trigger} onChange={(e) => set("trigger", e.target.value)}>
            {RULE_TRIGGERS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </Select>
        </Field>
        {(f.trigger === "opt_in" || f.trigger === "keyword_received") && text("keyword", "Keyword", "Empty: any keyword")}
        {f.trigger === "reply" && text("words", "Words", "Comma-separated: the reply contains any of them")}
        {f.trigger === "tag_added" && text("tag", "Tag", "Empty: any tag")}
        {f.trigger === "birthday" && (
          <>
            {text("field", "Date field", "The custom field holding the date (YYYY-MM-DD or MM/DD)")}
            {text("hour", "Hour", "0-23, on the contact's clock")}
          </>
        )}
        {f.trigger === "inactive" && text("days", "Days without a message")}
        {f.trigger === "link_clicked" && (
          <Field label="Campaign" htmlFor="rule-campaign" hint="A person's click of its short links; link previews and scanners do not count">
            <CampaignSelect id="rule-campaign" value={f.campaignId} onChange={(id) => set("campaignId", id)} empty="Any campaign" />
          </Field>
        )}

        <h3 className="pt-2 text-sm font-semibold text-slate-900">Conditions</h3>
        {text("onlyTag", "Only contacts tagged", "Empty: every contact")}
        <Field label="Only contacts in segment" htmlFor="rule-segment">
          <Select id="rule-segment" value={f.segmentId} onChange={(e) => set("segmentId", e.target.value)}>
            <option value="">Any contact</option>
            {segments.data?.data.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </Select>
        </Field>

        <h3 className="pt-2 text-sm font-semibold text-slate-900">Actions</h3>
        <Field label="Send message" htmlFor="rule-sendMessage" hint="Merge fields such as {firstName|there} work here">
          <textarea
            id="rule-sendMessage"
            className="w-full rounded-lg border border-slate-300 px-3 py-2 text-sm"
            rows={3}
            maxLength={1600}
            value={f.sendMessage}
            onChange={(e) => set("sendMessage", e.target.value)}
          />
        </Field>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={f.shortenLinks} onChange={(e) => set("shortenLinks", e.target.checked)} />
          Shorten links and count clicks (each contact gets their own short link)
        </label>
        {text("addTags", "Add tags", "Comma-separated")}
        {text("removeTags", "Remove tags", "Comma-separated")}
        {(["enrolDripId", "removeDripId"] as const).map((k) => (
          <Field key={k} label={k === "enrolDripId" ? "Enrol in drip" : "Remove from drip"} htmlFor={`rule-${k}`}>
            <Select id={`rule-${k}`} value={f[k]} onChange={(e) => set(k, e.target.value)}>
              <option value="">None</option>
              {drips.data?.data.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </Select>
          </Field>
        ))}
        {text("emailOwner", "Email me", "The text of an email to you")}
        <label className="flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" checked={f.optOut} onChange={(e) => set("optOut", e.target.checked)} />
          Opt the contact out
        </label>
        <div className="flex justify-end gap-2 pt-2">
          <Button type="button" variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={busy}>
            {rule ? "Save Rule" : "Create Rule"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

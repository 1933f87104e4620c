import { useState } from "react";
import type { Keyword, KeywordInput } from "../../../api/keywords";
import type { PhoneNumber } from "../../../api/phone-numbers";
import { useLinkDomain } from "../../../api/users";
import { Alert, Button, Field, Input, Modal, Select, Spinner } from "../../../components/ui";
import { SegmentCounter } from "../campaigns/segment-counter";
import { checkConfirmation } from "./checker";
import { submitWith, useMutation } from "../../../lib/use-mutation";

const MAX_REPLY = 1600;
const TEXTAREA =
  "w-full rounded-lg border border-slate-300 px-3 py-2 text-sm shadow-sm focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30";

type Form = {
  keyword: string;
  shortCode: string;
  autoReply: string;
  tags: string;
  matchMode: "whole" | "first_word";
  allNumbers: boolean;
  numbers: string[];
  doubleOptIn: boolean;
  replyAgain: boolean;
  alreadyReply: string;
  shortenLinks: boolean;
};

const formOf = (k: Keyword | null, business: string): Form => ({
  keyword: k?.keyword ?? "",
  shortCode: k?.shortCode ?? "",
  autoReply: k?.autoReply ?? `${business}: Thanks for joining! Up to 4 msgs/month. Msg & data rates may apply. Reply HELP for help, STOP to cancel.`,
  tags: (k?.tags ?? []).join(", "),
  matchMode: k?.matchMode ?? "whole",
  allNumbers: !k || k.numbers.length === 0,
  numbers: k?.numbers ?? [],
  doubleOptIn: k?.doubleOptIn ?? false,
  replyAgain: !!k?.alreadyReply,
  alreadyReply: k?.alreadyReply ?? `${business}: You're already subscribed. Reply STOP to cancel.`,
  shortenLinks: k?.shortenLinks ?? true,
});

/** The create/edit modal: the spec's fields, where it listens, double opt-in, and the confirmation checker. */
export function KeywordModal({
  open,
  keyword,
  numbers,
  business,
  onClose,
  onSave,
}: {
  open: boolean;
  keyword: Keyword | null;
  numbers: PhoneNumber[];
  business: string;
  onClose: () => void;
  /** Answers the error message to show, or null when saved. */
  onSave: (input: KeywordInput) => Promise<string | null>;
}) {
  const [form, setForm] = useState<Form>(() => formOf(keyword, business));
  const save = useMutation(async (input: KeywordInput) => {
    const message = await onSave(input);
    if (message) throw new Error(message);
  });
  const { error, setError, busy: saving } = save;
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const warnings = checkConfirmation(form.autoReply, business);
  // Links in the replies go out as short links unless the switch is off; the counter counts what is sent.
  const accountLinkDomain = useLinkDomain();
  const linkDomain = form.shortenLinks ? accountLinkDomain : null;

  const submit = () => {
    if (!form.keyword.trim() || !form.autoReply.trim()) return setError("Keyword and auto-reply are required");
    if (!form.allNumbers && form.numbers.length === 0) return setError("Choose at least one number, or listen on all numbers.");
    return save.run({
      keyword: form.keyword.trim(),
      shortCode: form.shortCode.trim() || null,
      autoReply: form.autoReply.trim(),
      tags: form.tags.split(",").map((t) => t.trim()).filter(Boolean),
      matchMode: form.matchMode,
      numbers: form.allNumbers ? [] : form.numbers,
      doubleOptIn: form.doubleOptIn,
      alreadyReply: form.replyAgain ? form.alreadyReply.trim() || null : null,
      shortenLinks: form.shortenLinks,
    });
  };

  return (
    <Modal open={open} onClose={onClose} title={keyword ? `Edit keyword ${keyword.keyword}` : "Create Keyword"}>
      <form onSubmit={submitWith(submit)} className="space-y-4" noValidate>
        <Field label="Keyword" htmlFor="kw-keyword" hint="One word of letters and digits, e.g. JOIN">
          <Input id="kw-keyword" value={form.keyword} maxLength={30} placeholder="JOIN" onChange={(e) => set({ keyword: e.target.value })} />
        </Field>
        <Field label="Matches" htmlFor="kw-match">
          <Select id="kw-match" value={form.matchMode} onChange={(e) => set({ matchMode: e.target.value as Form["matchMode"] })}>
            <option value="whole">The whole message (“JOIN”, “join!”)</option>
            <option value="first_word">The first word (“join us” too)</option>
          </Select>
        </Field>
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium text-slate-700">Listens on</legend>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={form.allNumbers} onChange={(e) => set({ allNumbers: e.target.checked })} />
            All my numbers
          </label>
          {!form.allNumbers &&
            numbers.map((n) => (
              <label key={n.id} className="ml-5 flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={form.numbers.includes(n.phoneNumber)}
                  onChange={(e) =>
                    set({ numbers: e.target.checked ? [...form.numbers, n.phoneNumber] : form.numbers.filter((x) => x !== n.phoneNumber) })
                  }
                />
                {n.phoneNumber}
                {n.displayName ? ` (${n.displayName})` : ""}
              </label>
            ))}
        </fieldset>
        <Field label="Short code (optional)" htmlFor="kw-short-code" hint="Shown in the copied instructions instead of your number">
          <Input id="kw-short-code" value={form.shortCode} maxLength={20} onChange={(e) => set({ shortCode: e.target.value })} />
        </Field>
        <Field label="Auto-reply" htmlFor="kw-reply">
          <textarea id="kw-reply" rows={4} maxLength={MAX_REPLY} value={form.autoReply} onChange={(e) => set({ autoReply: e.target.value })} className={TEXTAREA} />
          <SegmentCounter content={form.autoReply} appendOptOut={false} linkDomain={linkDomain} />
          {warnings.length > 0 ? (
            <ul className="mt-1 space-y-0.5 text-xs text-amber-800" data-testid="confirmation-warnings">
              {warnings.map((w) => (
                <li key={w.id}>⚠ {w.text}</li>
              ))}
            </ul>
          ) : (
            <p className="mt-1 text-xs text-green-700">Has the business name, frequency, rates, HELP and STOP.</p>
          )}
        </Field>
        <Field label="Tags (comma separated)" htmlFor="kw-tags">
          <Input id="kw-tags" value={form.tags} placeholder="vip, newsletter" onChange={(e) => set({ tags: e.target.value })} />
        </Field>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={form.doubleOptIn} onChange={(e) => set({ doubleOptIn: e.target.checked })} />
          <span>
            Double opt-in: ask “Reply Y to confirm” first; nobody is subscribed until they reply Y within 24 hours.
          </span>
        </label>
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={form.replyAgain} onChange={(e) => set({ replyAgain: e.target.checked })} />
          <span>Reply to people who are already subscribed and text it again</span>
        </label>
        {form.replyAgain && (
          <Field label="Already-subscribed reply" htmlFor="kw-already">
            <textarea id="kw-already" rows={2} maxLength={MAX_REPLY} value={form.alreadyReply} onChange={(e) => set({ alreadyReply: e.target.value })} className={TEXTAREA} />
            <SegmentCounter content={form.alreadyReply} appendOptOut={false} linkDomain={linkDomain} />
          </Field>
        )}
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-1" checked={form.shortenLinks} onChange={(e) => set({ shortenLinks: e.target.checked })} />
          <span>
            Shorten links and count clicks: links in these replies go out as short links
            {accountLinkDomain ? ` on ${accountLinkDomain.replace(/^https?:\/\//, "")}` : ""}, each for its recipient.
          </span>
        </label>
        {error && <Alert>{error}</Alert>}
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={saving}>
            {saving && <Spinner />}
            {keyword ? "Save Keyword" : "Create Keyword"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

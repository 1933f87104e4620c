import type { AppContext } from "../context";
import { listKeywords } from "../keywords/keywords";
import { listTemplates } from "../templates/templates";
import { businessContactOf, businessNameOf, helpReplyOf, type User } from "../users/queries";
import { personalize } from "./outbox";

/**
 * What A2P 10DLC and toll-free reviewers reject, checked against the account's own texts before it submits a
 * registration (issue 34 item 1): the brand named and the way to opt out in the sample messages (its templates,
 * rendered as a campaign sends them), a HELP reply with a contact, the opt-in keyword's welcome text, and the
 * privacy policy smsdesk cannot see.
 */

export type ChecklistItem = { id: string; label: string; status: "pass" | "fail" | "manual"; detail: string };

const STOP = /\bstop\b/i;
const RATES = /rates may apply/i;
const CONTACT = /@|https?:\/\/|www\.|\+?\d[\d\s().-]{6,}\d/;

const names = (list: string[]) => list.map((n) => `'${n}'`).join(", ");

export async function registrationChecklist(ctx: AppContext, user: User): Promise<{ items: ChecklistItem[] }> {
  const brand = businessNameOf(user);
  const items: ChecklistItem[] = [];
  items.push(
    user.businessName?.trim()
      ? { id: "brand", label: "Brand name", status: "pass", detail: `Your messages are signed '${brand}'.` }
      : { id: "brand", label: "Brand name", status: "fail", detail: `No business name is set, so messages are signed '${brand}'. Set the name you register under in Account Settings.` },
  );

  // The account's own templates are the samples a reviewer reads; rendered as a campaign sends them.
  const samples = (await listTemplates(ctx, user.id, {}))
    .filter((t) => !t.builtIn)
    .map((t) => ({ name: t.name, text: personalize(t.content, { firstName: "Alex", lastName: "", customFields: {} }, brand, user.appendOptOut) }));
  if (!samples.length) {
    const none = "You have no templates of your own: reviewers ask for 2 to 5 sample messages. Save the texts you will send as templates.";
    items.push({ id: "samples-brand", label: "Sample messages name the brand", status: "fail", detail: none });
    items.push({ id: "samples-opt-out", label: "Sample messages say how to opt out", status: "fail", detail: none });
  } else {
    const unbranded = samples.filter((s) => !s.text.toLowerCase().includes(brand.toLowerCase())).map((s) => s.name);
    items.push(
      unbranded.length
        ? { id: "samples-brand", label: "Sample messages name the brand", status: "fail", detail: `${names(unbranded)} ${unbranded.length === 1 ? "does" : "do"} not name '${brand}': add {business} to the text.` }
        : { id: "samples-brand", label: "Sample messages name the brand", status: "pass", detail: `All ${samples.length} of your templates name '${brand}'.` },
    );
    const noOptOut = samples.filter((s) => !STOP.test(s.text)).map((s) => s.name);
    items.push(
      noOptOut.length
        ? {
            id: "samples-opt-out",
            label: "Sample messages say how to opt out",
            status: "fail",
            detail: `${names(noOptOut)} ${noOptOut.length === 1 ? "says" : "say"} nothing of STOP${user.appendOptOut ? "" : " and the opt-out line is turned off in Account Settings"}: add "Reply STOP to opt out".`,
          }
        : { id: "samples-opt-out", label: "Sample messages say how to opt out", status: "pass", detail: `All ${samples.length} of your templates, as sent, say how to opt out with STOP.` },
    );
  }

  const help = helpReplyOf(user);
  const contact = businessContactOf(user);
  items.push(
    help.includes(contact) || CONTACT.test(help)
      ? { id: "help", label: "HELP reply gives a contact", status: "pass", detail: `HELP is answered: "${help}"` }
      : { id: "help", label: "HELP reply gives a contact", status: "fail", detail: `Your HELP reply gives no phone, email or website: "${help}". Add ${contact} to it in Account Settings.` },
  );

  const active = (await listKeywords(ctx, user.id)).data.filter((k) => k.isActive);
  if (!active.length) {
    items.push({ id: "opt-in", label: "Opt-in keyword's welcome text", status: "manual", detail: "No active text-to-join keyword: describe in the registration how people opt in (a web form, at the counter) and show where." });
  } else {
    const lacking = active.flatMap((k) => {
      const text = personalize(k.autoReply, { firstName: "Alex", lastName: "", customFields: {} }, brand, false);
      const missing = [
        text.toLowerCase().includes(brand.toLowerCase()) ? null : "the brand",
        STOP.test(text) ? null : "STOP",
        RATES.test(text) ? null : '"Msg & data rates may apply"',
      ].filter(Boolean);
      return missing.length ? [`${k.keyword} (no ${missing.join(", no ")})`] : [];
    });
    items.push(
      lacking.length
        ? { id: "opt-in", label: "Opt-in keyword's welcome text", status: "fail", detail: `The welcome text of ${lacking.join("; ")} leaves out what reviewers look for.` }
        : { id: "opt-in", label: "Opt-in keyword's welcome text", status: "pass", detail: `${active.map((k) => k.keyword).join(", ")}: the welcome text names the brand, says message rates may apply and how to STOP.` },
    );
  }

  items.push({
    id: "privacy",
    label: "Privacy policy",
    status: "manual",
    detail: "smsdesk cannot see your website: it needs a privacy policy saying mobile numbers and opt-in data are not shared with third parties for marketing, and the opt-in page should link to it.",
  });
  return { items };
}

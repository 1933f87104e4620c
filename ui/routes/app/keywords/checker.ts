/**
 * The confirmation checker of the keyword modal: what carriers expect in a text-to-join confirmation (CTIA's
 * message principles) and the reply lacks. Each warning names what to add.
 */

export type Warning = { id: "business" | "frequency" | "rates" | "help" | "stop"; text: string };

/** The spec's and personalisation's business field: filled with the account's business name when sent. */
const BUSINESS_FIELD = /\{\s*business\s*(\|[^}]*)?\}|\[Business\]/i;
const FREQUENCY =
  /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s*(msgs?|messages?|texts?|alerts?)\s*(\/|per|a|each|every)\s*(day|wk|week|mo|month|year)\b|\brecurring\b|\b(daily|weekly|monthly)\b/i;
const RATES = /msg\s*(&|and)\s*data\s*rates\s*may\s*apply/i;

export function checkConfirmation(text: string, business: string): Warning[] {
  const warnings: Warning[] = [];
  const name = business.trim();
  if (!BUSINESS_FIELD.test(text) && !(name && text.toLowerCase().includes(name.toLowerCase()))) {
    warnings.push({ id: "business", text: `Name your business (${name ? `“${name}” or ` : ""}{business}) so people know who is texting.` });
  }
  if (!FREQUENCY.test(text)) warnings.push({ id: "frequency", text: "Say how often you text, e.g. “Up to 4 msgs/month” or “Recurring messages”." });
  if (!RATES.test(text)) warnings.push({ id: "rates", text: "Add “Msg & data rates may apply”." });
  if (!/\bHELP\b/i.test(text)) warnings.push({ id: "help", text: "Tell people to reply HELP for help." });
  if (!/\bSTOP\b/i.test(text)) warnings.push({ id: "stop", text: "Tell people to reply STOP to cancel." });
  return warnings;
}

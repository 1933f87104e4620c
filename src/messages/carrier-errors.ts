/**
 * Carrier error codes that mean "not registered" or "blocked", in plain words (issue 34 item 1), for a campaign's
 * failures: what happened and what to do. Twilio's codes are 5 digits starting 2 or 3 (twilio.com/docs/api/errors),
 * Telnyx's delivery codes 400xx-403xx (developers.telnyx.com, Messaging Error Code Reference); the two ranges do not
 * meet, so a message's code alone says which provider's table to read. Telnyx's codes are its Messaging Error Code
 * Reference's (developers.telnyx.com/docs/messaging/messages/error-codes, read 7 December 2026 from a copy of the page
 * updated 11 June 2026): 40010 "Not 10DLC registered" and 40016-40019 in its 10DLC-specific table, 40329 "Toll-free
 * not verified" and 40330 "Toll-free not provisioned" in its toll-free table, 40002/40003 carrier rejections, 40300
 * "Blocked (STOP)" among the request errors.
 */

export type CarrierErrorExplanation = { meaning: string; fix: string };

const REGISTER_10DLC = "Register a brand and an A2P 10DLC campaign for the number (Phone Settings shows each number's registration), or send from a registered number.";
const VERIFY_TOLL_FREE = "Submit (or correct and resubmit) the toll-free verification for the number in your provider's console; it can send to US and Canadian numbers once approved.";

const EXPLANATIONS: Record<string, CarrierErrorExplanation> = {
  // Twilio
  "30034": { meaning: "US carriers blocked it: the sending number is not registered in an A2P 10DLC campaign.", fix: REGISTER_10DLC },
  "30035": {
    meaning: "US carriers blocked it: the number's A2P 10DLC campaign is approved but the number is not provisioned on it yet.",
    fix: "Wait until the number shows Registered in Phone Settings (usually within a day of approval), then send again.",
  },
  "30032": { meaning: "Carriers blocked it: the toll-free sending number has not been verified.", fix: VERIFY_TOLL_FREE },
  "30007": {
    meaning: "The carrier filtered it as spam or as breaking its messaging rules (often unregistered traffic, links on shorteners, or missing opt-out words).",
    fix: "Check that the sender is registered, name your business and say how to opt out (Reply STOP), and avoid public link shorteners.",
  },
  "30022": {
    meaning: "It exceeded the throughput US carriers granted the number's A2P 10DLC campaign.",
    fix: "Lower the number's messages per second in Phone Settings, or raise the brand's trust score with your provider (secondary vetting).",
  },
  "30027": {
    meaning: "T-Mobile's daily limit for the brand's A2P 10DLC traffic was reached.",
    fix: "Send the rest tomorrow, or ask your provider about the brand's T-Mobile tier (vetting raises it).",
  },
  "30003": { meaning: "The recipient's phone is unreachable (switched off or out of coverage).", fix: "Nothing to fix on your side; the number may work later." },
  "30005": { meaning: "The recipient's number does not exist or is no longer in service.", fix: "Remove or correct the number in Contacts." },
  "30006": { meaning: "The recipient's number is a landline or cannot receive texts.", fix: "Remove the number from the audience, or replace it with a mobile number." },
  "21610": { meaning: "The recipient had replied STOP to this sender: the provider refuses texts to them.", fix: "Nothing to do: they are marked opted out. They can text START to opt back in." },
  // Telnyx
  "40010": { meaning: "US carriers blocked it: the sending number is not assigned to a registered 10DLC campaign.", fix: REGISTER_10DLC },
  "40329": { meaning: "Carriers blocked it: the toll-free sending number has not been verified.", fix: VERIFY_TOLL_FREE },
  "40330": {
    meaning: "The toll-free sending number is not provisioned for messaging yet.",
    fix: "Wait for the provider to finish provisioning the number (Telnyx's support can say when), then send again.",
  },
  "40016": {
    meaning: "T-Mobile's sending limit for the brand's 10DLC traffic was reached.",
    fix: "Send more slowly or the rest tomorrow, or raise the brand's vetting score with your provider.",
  },
  "40017": {
    meaning: "AT&T rejected it as spam.",
    fix: "Check the text: name your business, say how to opt out, and avoid public link shorteners.",
  },
  "40018": {
    meaning: "AT&T's sending limit for the number's 10DLC campaign was reached.",
    fix: "Lower the number's messages per second in Phone Settings, or raise the brand's vetting score with your provider.",
  },
  "40019": {
    meaning: "AT&T could not match the number to a 10DLC campaign (invalid tag data).",
    fix: "Check in your provider's console that the number is assigned to the registered campaign (Phone Settings shows each number's registration).",
  },
  "40002": { meaning: "The carrier's spam filter blocked it for now.", fix: "Send more slowly and check the text: name your business, say how to opt out, avoid public link shorteners." },
  "40003": { meaning: "The carrier permanently blocked the sending number as spam.", fix: "Send from another number, and ask your provider's support to appeal the block." },
  "40300": { meaning: "The recipient had replied STOP to this sender: the provider refuses texts to them.", fix: "Nothing to do: they are marked opted out. They can text START to opt back in." },
};

/** The plain-words explanation of a provider's error code, when it is one that says why a text was blocked. */
export function explainCarrierError(code: string | null | undefined): CarrierErrorExplanation | null {
  return code ? (EXPLANATIONS[code.trim()] ?? null) : null;
}

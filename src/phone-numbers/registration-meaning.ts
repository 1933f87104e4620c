import type { RegistrationProgram, RegistrationState } from "../../db/schema";

/**
 * What a number's registration state means for sending, in plain words (issue 34 item 1): shown on the Phone
 * Settings card, in `smsdesk doctor` and in a campaign's warning. Since February 2025 US carriers block texts from
 * local (10DLC) numbers that are in no approved A2P campaign (Twilio error 30034), and since January 2024 texts
 * from toll-free numbers without an approved verification (Twilio 30032): so pending blocks as well.
 */

export const STATE_LABELS: Record<RegistrationState, string> = {
  registered: "Registered",
  pending: "Pending",
  rejected: "Rejected",
  unregistered: "Unregistered",
  not_applicable: "Not applicable",
  unknown: "Not known",
};

export type Meaning = {
  /** Whether carriers let this number's texts to US recipients through. */
  blocksUs: boolean;
  /** What the state does to sending (the limits). */
  sending: string;
  /** What to do about it; null when nothing is needed. */
  todo: string | null;
};

const RESUBMIT = "Correct what the reviewers named, then resubmit in your provider's console (a resubmission is charged again).";

export function registrationMeaning(program: RegistrationProgram, state: RegistrationState): Meaning {
  if (state === "not_applicable") return { blocksUs: false, sending: "No US carrier registration applies to this sender.", todo: null };
  if (state === "unknown")
    return { blocksUs: false, sending: "This provider offers no registration status to read.", todo: "Check the number's registration in your provider's console." };
  if (program === "toll_free") {
    switch (state) {
      case "registered":
        return { blocksUs: false, sending: "Verified: texts to US and Canadian numbers are delivered at the toll-free rate.", todo: null };
      case "pending":
        return { blocksUs: true, sending: "Carriers block its texts to US and Canadian numbers until the verification is approved.", todo: "Wait for the review (usually days); send from a verified number meanwhile." };
      case "rejected":
        return { blocksUs: true, sending: "Carriers block its texts to US and Canadian numbers: the verification was rejected.", todo: RESUBMIT };
      default:
        return { blocksUs: true, sending: "Carriers block its texts to US and Canadian numbers: toll-free numbers must be verified.", todo: "Submit a toll-free verification for this number in your provider's console." };
    }
  }
  switch (state) {
    case "registered":
      return { blocksUs: false, sending: "Registered: US carriers deliver its texts within the campaign's approved throughput.", todo: null };
    case "pending":
      return { blocksUs: true, sending: "US carriers block its texts to US numbers until the campaign is approved.", todo: "Wait for the carriers' review (usually days); send from a registered number meanwhile." };
    case "rejected":
      return { blocksUs: true, sending: "US carriers block its texts to US numbers: the registration was rejected.", todo: RESUBMIT };
    default:
      return {
        blocksUs: true,
        sending: "US carriers block its texts to US numbers: local numbers must be in a registered A2P 10DLC campaign.",
        todo: "Register a brand and an A2P 10DLC campaign in your provider's console and add this number to it.",
      };
  }
}

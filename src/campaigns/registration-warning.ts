import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import type { AppContext } from "../context";
import { chooseSender } from "../phone-numbers/numbers";
import { registrationOfSender } from "../phone-numbers/registration";
import type { User } from "../users/queries";
import { pieces } from "./turns";

/**
 * The warning a campaign gets before it is sent (issue 34 item 1) when its sender is a number US carriers block:
 * a local number whose A2P 10DLC registration is missing, pending or rejected, or a toll-free number without an
 * approved verification, and some recipients are numbers those carriers serve (US; US or Canada for toll-free).
 * It says why (the provider's reason) and what to do; the state is the one last read from the provider.
 */

export type RegistrationWarning = {
  phoneNumber: string;
  program: "10dlc" | "toll_free";
  state: "pending" | "rejected" | "unregistered";
  /** Recipients the carriers block the sender's texts to. */
  blockedRecipients: number;
  message: string;
  reason: string | null;
  todo: string | null;
  checkedAt: string | null;
};

const PHRASES = {
  "10dlc": { unregistered: "it is not registered for A2P 10DLC", pending: "its A2P 10DLC registration is still pending", rejected: "its A2P 10DLC registration was rejected" },
  toll_free: { unregistered: "it is not verified for toll-free messaging", pending: "its toll-free verification is still pending", rejected: "its toll-free verification was rejected" },
} as const;

/** The country of a number, for the carriers that serve it (null when it is not a valid number). */
const countryOf = (phone: string) => parsePhoneNumberFromString(phone)?.country ?? null;

/**
 * `recipients`: numbers with how many recipients each stands for (the delivery preview's groups: North American
 * numbers grouped by area code, which alone decides the country), asked for only when the sender is one carriers
 * block: a send reads its audience for this alone, and a million contacts grouped held the event loop 1.9 s (of its
 * own work) on every start. Null when nothing blocks. The numbers' countries are read in pieces with turns of the
 * event loop between (a million numbers outside North America are a million groups, each parsed).
 */
export async function registrationWarning(
  ctx: AppContext,
  user: User,
  fromNumber: string | null | undefined,
  recipients: () => Promise<{ phone: string; n: number }[]>,
): Promise<RegistrationWarning | null> {
  let sender;
  try {
    sender = await chooseSender(ctx, user.id, fromNumber);
  } catch {
    return null; // Not an active number: the send itself says so.
  }
  if (!sender) return null;
  const view = await registrationOfSender(ctx, user.id, sender.n.phoneNumber);
  if (!view?.blocksUs || (view.program !== "10dlc" && view.program !== "toll_free")) return null;
  const state = view.state as RegistrationWarning["state"];
  const served = view.program === "toll_free" ? ["US", "CA"] : ["US"];
  let blocked = 0;
  const clock = pieces();
  for (const r of await recipients()) {
    if (served.includes(countryOf(r.phone) ?? "")) blocked += r.n;
    if (clock.due()) await clock.turn();
  }
  if (!blocked) return null;
  const whom = view.program === "toll_free" ? "US or Canadian" : "US";
  const count = blocked === 1 ? `1 recipient is a ${whom} number` : `${blocked.toLocaleString("en-US")} recipients are ${whom} numbers`;
  return {
    phoneNumber: sender.n.phoneNumber,
    program: view.program,
    state,
    blockedRecipients: blocked,
    message: `Carriers will block texts from ${sender.n.phoneNumber}: ${PHRASES[view.program][state]}, and ${count}.`,
    reason: view.reason,
    todo: view.todo,
    checkedAt: view.checkedAt,
  };
}

import type { campaigns } from "../../db/schema";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { heldMedia } from "../media/media";
import { NO_SENDER } from "../messages/messages";
import { chooseSender } from "../phone-numbers/numbers";
import { cannotSendMms } from "../../shared/providers/mms";
import type { ProviderKind } from "../providers/types";
import { campaignMedia } from "./outbox";

/**
 * The sender of a campaign: its from number when set, else the account's default. A campaign with attachments
 * from a provider that sends no MMS is refused here, before anything is queued or scheduled.
 */
export async function senderFor(ctx: AppContext, userId: string, campaign: Pick<typeof campaigns.$inferSelect, "id" | "fromNumber">) {
  const sender = await chooseSender(ctx, userId, campaign.fromNumber);
  if (!sender) throw badRequest(NO_SENDER, { needsProvider: true });
  const refusal = cannotSendMms(sender.provider as ProviderKind);
  if (refusal && (await heldMedia(ctx, [campaignMedia(campaign.id)])).size) throw badRequest(refusal, { mmsUnsupported: true });
  return { numberId: sender.n.id, providerId: sender.n.providerId, phoneNumber: sender.n.phoneNumber };
}

import { conflict } from "../http/errors";
import type { AppContext } from "../context";
import type { User } from "../users/queries";
import { campaignWithoutRecipients, getCampaign, startOrSchedule, viewOf } from "./campaigns";
import { typedListIs, typedListText } from "./records";
import { nextTurn } from "./turns";
import { reachOf } from "./delivery-preview";
import { registrationWarning } from "./registration-warning";

/**
 * The registration check of a send (issue 34 item 1): a campaign whose sender carriers block for its US recipients
 * is not sent until the caller acknowledges the warning (`acknowledgeRegistration: true`); 409 with the warning
 * otherwise. The UI shows it before the Send button. Its audience is read in pieces, between turns of the event loop
 * (src/campaigns/delivery-preview.ts reachOf), so it runs before the send, never inside a transaction.
 */
export async function assertRegistrationAcknowledged(ctx: AppContext, user: User, id: string, acknowledged: boolean): Promise<void> {
  // Without its typed list, read only for the warning's count: sendCampaign reads it once for the start.
  const campaign = await campaignWithoutRecipients(ctx, user.id, id);
  if (!campaign || acknowledged || (campaign.status !== "draft" && campaign.status !== "scheduled")) return;
  const reach = async () => (await reachOf(ctx, user, { audience: campaign.audience, recipients: (await getCampaign(ctx, user.id, id)).recipients })).groups;
  const warning = await registrationWarning(ctx, user, campaign.fromNumber, reach);
  if (warning)
    throw conflict(`${warning.message} ${warning.todo ?? ""} Send with acknowledgeRegistration: true to send anyway.`.replace(/\s+/g, " "), {
      registrationWarning: warning,
    });
}

/**
 * POST /api/campaigns/:id/send: the registration check, then the send (startOrSchedule checks the status again). The
 * answer's campaign carries its typed list, read (100,000 numbers parsed) in a turn of the event loop before the
 * start's, which answers at once: a cancel sent right after the answer still finds its messages unsent.
 */
export async function sendCampaignChecked(ctx: AppContext, user: User, id: string, scheduledAt: string | null, acknowledged: boolean) {
  await assertRegistrationAcknowledged(ctx, user, id, acknowledged);
  const text = await typedListText(ctx, user.id, id);
  const typed = text === null ? [] : (JSON.parse(text) as string[]);
  await nextTurn();
  const result = await startOrSchedule(ctx, user, id, scheduledAt);
  // The list as started: read again only if an edit changed it meanwhile.
  const recipients = text !== null && (await typedListIs(ctx, id, text)) ? typed : (await getCampaign(ctx, user.id, id)).recipients;
  const row = (await campaignWithoutRecipients(ctx, user.id, id))!;
  return { campaign: await viewOf(ctx, { ...row, recipients }), ...result };
}

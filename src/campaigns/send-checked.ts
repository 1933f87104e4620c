import { conflict } from "../http/errors";
import type { AppContext } from "../context";
import type { User } from "../users/queries";
import { campaignWithoutRecipients, getCampaign, sendCampaign } from "./campaigns";
import { reachOf } from "./delivery-preview";
import { registrationWarning } from "./registration-warning";

/**
 * POST /api/campaigns/:id/send with the registration check first (issue 34 item 1): a campaign whose sender
 * carriers block for its US recipients is not sent until the caller acknowledges the warning
 * (`acknowledgeRegistration: true`); 409 with the warning otherwise. The UI shows it before the Send button.
 */
export function sendCampaignChecked(ctx: AppContext, user: User, id: string, scheduledAt: string | null, acknowledged: boolean) {
  // Without its typed list, read only for the warning's count: sendCampaign reads it once for the start.
  const campaign = campaignWithoutRecipients(ctx, user.id, id);
  if (campaign && !acknowledged && (campaign.status === "draft" || campaign.status === "scheduled")) {
    const reach = () => reachOf(ctx, user, { audience: campaign.audience, recipients: getCampaign(ctx, user.id, id).recipients }).groups;
    const warning = registrationWarning(ctx, user, campaign.fromNumber, reach);
    if (warning)
      throw conflict(`${warning.message} ${warning.todo ?? ""} Send with acknowledgeRegistration: true to send anyway.`.replace(/\s+/g, " "), {
        registrationWarning: warning,
      });
  }
  return sendCampaign(ctx, user, id, scheduledAt);
}

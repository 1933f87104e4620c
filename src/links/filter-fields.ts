import { sql, type SQL } from "drizzle-orm";
import { linkClicks } from "../../db/schema";

/**
 * The click conditions of a segment (issue 32 item 2), as SQL over the contacts table: the links domain owns the
 * clicks, the segments domain (src/segments/conditions.ts) builds conditions from these around the contact's id
 * (contacts/filter-fields.ts CONTACT_ID). Only people's clicks count.
 * - clickedCampaign {eq: <campaign id>}: the contact clicked a link of that campaign.
 * - lastClicked {gte: "-7d"}: the contact's latest click of any short link (a date, as lastEngaged).
 */
export const lastClickedColumn = (contactId: SQL): SQL =>
  sql`(SELECT max(${linkClicks.at}) FROM ${linkClicks} WHERE ${linkClicks.contactId} = ${contactId} AND ${linkClicks.verdict} = 'human')`;

export const clickedCampaign = (contactId: SQL, campaignId: string): SQL =>
  sql`EXISTS (SELECT 1 FROM ${linkClicks} WHERE ${linkClicks.contactId} = ${contactId} AND ${linkClicks.verdict} = 'human' AND ${linkClicks.campaignId} = ${campaignId})`;

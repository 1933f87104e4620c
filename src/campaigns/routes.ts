import { sendCampaignChecked } from "./send-checked";
import { registrationChecklist } from "./registration-checklist";
import { Elysia, t } from "elysia";
import { CAMPAIGN_STATUSES } from "../../db/schema";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { pageOf, pagingQuery } from "../http/paging";
import { segmentInfo } from "../messages/segments";
import { presetCounts } from "./audiences";
import {
  archiveCampaigns, assertTypedRecipients, campaignClickFigures, campaignViewOf, campaignLogs, cancelByUser, createCampaign, campaignsCsv, deleteDraft, duplicateCampaign, getCampaign, pauseByUser,
  searchCampaigns,
  resumeByUser, sendingStats, updateCampaign, viewOf, type CampaignInput,
} from "./campaigns";
import { businessNameOf } from "../users/queries";
import { deleteFinishedCampaigns } from "./delete";
import { sendHeldNow } from "./held";
import { previewDelivery, withQuietWait } from "./delivery-preview";
import { personalize } from "./outbox";
import { HISTORY_RANGES, HISTORY_SORTS } from "./history";
import { MAX_MEDIA_PER_MESSAGE } from "../../shared/media/limits";
import { abTestReport, pickWinnerByUser } from "./ab-test";

const idParams = t.Object({ id: t.String({ maxLength: 64 }) });
const ids = (name: string) => t.Array(t.String({ maxLength: 64 }), { maxItems: 1000, error: `${name} must be a list of ids` });
const nullableText = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

const audience = t.Union(
  [
    t.Object({ kind: t.Literal("manual") }),
    t.Object({ kind: t.Union([t.Literal("all"), t.Literal("recent"), t.Literal("loyal"), t.Literal("new")]) }),
    t.Object({ kind: t.Literal("contacts"), contactIds: t.Array(t.String({ maxLength: 64 }), { maxItems: 100_000 }) }),
    t.Object({ kind: t.Literal("segment"), segmentId: t.String({ maxLength: 64 }) }),
  ],
  { error: "Audience must be manual, all, recent, loyal, new, contacts or segment" },
);

/**
 * An A/B test's settings, their shape only: counts and ranges are checked by cleanAbTest (src/campaigns/ab-split.ts),
 * whose messages name the limit (a schema's refusal inside this nullable field would only say "expected object").
 */
const abTest = t.Object(
  {
    variants: t.Array(t.String({ maxLength: 5000 }), { maxItems: 10 }),
    testPercent: t.Number(),
    measure: t.Union([t.Literal("clicks"), t.Literal("replies")]),
    decideAfterHours: t.Optional(t.Nullable(t.Number())),
  },
  { error: "abTest must have variants (2 to 4 texts), testPercent, measure (clicks or replies) and decideAfterHours (hours, or null: by hand)" },
);

const campaignBody = t.Object({
  name: t.Optional(t.String({ maxLength: 500 })),
  type: t.Optional(t.String({ maxLength: 10 })),
  content: t.Optional(t.String({ maxLength: 5000 })),
  subject: nullableText(500),
  fromEmail: nullableText(254),
  fromName: nullableText(200),
  fromNumber: nullableText(64),
  // Numbers typed in: up to 100,000 strings, or one text. Checked by assertTypedRecipients in the handler, not here:
  // the framework's clean and decode steps walk an array or union field entry by entry, again and again.
  recipients: t.Optional(t.Unknown()),
  audience: t.Optional(t.Nullable(audience)),
  scheduledAt: nullableText(40),
  expiresAfterMinutes: t.Optional(t.Integer({ minimum: 5, maximum: 7 * 24 * 60, error: "Expiry must be 5 minutes to 7 days" })),
  appendOptOut: t.Optional(t.Boolean()),
  transactional: t.Optional(t.Boolean({ error: "transactional must be true or false" })),
  shortenLinks: t.Optional(t.Boolean({ error: "shortenLinks must be true or false" })),
  utmSource: nullableText(100),
  utmMedium: nullableText(100),
  utmCampaign: nullableText(100),
  linkExpiryDays: t.Optional(t.Integer({ minimum: 1, maximum: 3650, error: "Links must expire after 1 to 3650 days" })),
  mediaIds: t.Optional(
    t.Array(t.String({ maxLength: 64 }), { maxItems: MAX_MEDIA_PER_MESSAGE, error: `mediaIds lists at most ${MAX_MEDIA_PER_MESSAGE} uploads (POST /api/media)` }),
  ),
  abTest: t.Optional(t.Nullable(abTest)),
});

const literals = <T extends string>(values: readonly T[], error: string) => t.Union(values.map((v) => t.Literal(v)), { error });
const flag = (name: string) => t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { error: `${name} must be true or false` }));
const day = (name: string) => t.Optional(t.String({ maxLength: 10, error: `${name} must be a date written YYYY-MM-DD` }));

/** The filters of the campaigns list and of its CSV: search, status, type, archived, sent, date range, order. */
const listQuery = {
  q: t.Optional(t.String({ maxLength: 200 })),
  status: t.Optional(literals(CAMPAIGN_STATUSES, `status must be one of ${CAMPAIGN_STATUSES.join(", ")}`)),
  type: t.Optional(literals(["sms", "email"], "type must be sms or email")),
  archived: flag("archived"),
  sent: flag("sent"),
  range: t.Optional(literals(HISTORY_RANGES, `range must be one of ${HISTORY_RANGES.join(", ")}`)),
  from: day("from"),
  to: day("to"),
  sort: t.Optional(literals(HISTORY_SORTS, `sort must be one of ${HISTORY_SORTS.join(", ")}`)),
};

const listFilters = (q: { [K in keyof typeof listQuery]?: string }) => ({
  q: q.q,
  status: q.status as (typeof CAMPAIGN_STATUSES)[number] | undefined,
  type: q.type as "sms" | "email" | undefined,
  archived: q.archived === undefined ? undefined : q.archived === "true",
  sent: q.sent === "true",
  range: q.range as (typeof HISTORY_RANGES)[number] | undefined,
  from: q.from,
  to: q.to,
  sort: q.sort as (typeof HISTORY_SORTS)[number] | undefined,
});

export function campaignRoutes(ctx: AppContext) {
  return new Elysia()
    .use(authGuard(ctx))
    // GET /api/campaigns
    .get(
      "/api/campaigns",
      async ({ user, query }) => {
        const page = await searchCampaigns(ctx, user, { ...pageOf(query, 20), ...listFilters(query) });
        return { ...page, data: await withQuietWait(ctx, user, page.data) };
      },
      { auth: true, query: t.Object({ ...pagingQuery(100), ...listQuery }) },
    )
    // GET /api/campaigns/export.csv
    .get("/api/campaigns/export.csv", ({ user, query }) => campaignsCsv(ctx, user, listFilters(query)), { auth: true, query: t.Object(listQuery) })
    // GET /api/campaigns/registration-checklist
    .get("/api/campaigns/registration-checklist", ({ user }) => registrationChecklist(ctx, user), { auth: true })
    // GET /api/campaigns/audiences
    .get("/api/campaigns/audiences", ({ user }) => presetCounts(ctx, user.id), { auth: true })
    // POST /api/campaigns/preview
    .post(
      "/api/campaigns/preview",
      ({ user, body }) => {
        const sample = { firstName: body.firstName?.trim() || "John", lastName: "", customFields: {} };
        const text = personalize(body.content, sample, businessNameOf(user), body.appendOptOut ?? user.appendOptOut);
        return { text, ...segmentInfo(text) };
      },
      { auth: true, body: t.Object({ content: t.String({ maxLength: 5000 }), appendOptOut: t.Optional(t.Boolean()), firstName: t.Optional(t.String({ maxLength: 100 })) }) },
    )
    // POST /api/campaigns/preview-delivery
    .post("/api/campaigns/preview-delivery", ({ user, body }) => {
      assertTypedRecipients(body.recipients);
      return previewDelivery(ctx, user, { ...body, recipients: body.recipients });
    }, {
      auth: true,
      body: t.Object({
        audience,
        recipients: campaignBody.properties.recipients,
        content: t.Optional(t.String({ maxLength: 5000 })),
        appendOptOut: t.Optional(t.Boolean()),
        scheduledAt: nullableText(40),
        transactional: campaignBody.properties.transactional,
        fromNumber: nullableText(40),
        shortenLinks: campaignBody.properties.shortenLinks,
        attachments: t.Optional(t.Integer({ minimum: 0, maximum: MAX_MEDIA_PER_MESSAGE, error: `attachments must be 0 to ${MAX_MEDIA_PER_MESSAGE}` })),
        abTest: t.Optional(
          t.Nullable(
            t.Object(
              { variants: t.Array(t.String({ maxLength: 5000 }), { maxItems: 4 }), testPercent: t.Number({ minimum: 0, maximum: 100 }) },
              { error: "abTest must have variants (up to 4 texts) and testPercent" },
            ),
          ),
        ),
      }),
    })
    // POST /api/campaigns
    .post(
      "/api/campaigns",
      ({ user, body, set }) => {
        set.status = 201;
        return createCampaign(ctx, user, body as CampaignInput);
      },
      { auth: true, body: campaignBody },
    )
    // GET /api/campaigns/:id
    .get("/api/campaigns/:id", async ({ user, params }) => (await withQuietWait(ctx, user, [await campaignViewOf(ctx, user.id, params.id)]))[0], { auth: true, params: idParams })
    // GET /api/campaigns/:id/clicks
    .get("/api/campaigns/:id/clicks", ({ user, params }) => campaignClickFigures(ctx, user.id, params.id), { auth: true, params: idParams })
    // GET /api/campaigns/:id/ab-test
    .get("/api/campaigns/:id/ab-test", ({ user, params }) => abTestReport(ctx, user, params.id), { auth: true, params: idParams })
    // POST /api/campaigns/:id/ab-test/winner
    .post("/api/campaigns/:id/ab-test/winner", ({ user, params, body }) => pickWinnerByUser(ctx, user, params.id, body?.variant), {
      auth: true,
      params: idParams,
      body: t.Optional(t.Object({ variant: t.Optional(t.Nullable(t.String({ maxLength: 1, error: "variant must be a letter, A to D" }))) })),
    })
    // PUT /api/campaigns/:id
    .put("/api/campaigns/:id", ({ user, params, body }) => updateCampaign(ctx, user, params.id, body as CampaignInput), { auth: true, params: idParams, body: campaignBody })
    // DELETE /api/campaigns/:id
    .delete(
      "/api/campaigns/:id",
      ({ user, params }) => deleteDraft(ctx, user.id, params.id),
      { auth: true, params: idParams },
    )
    // POST /api/campaigns/:id/duplicate
    .post(
      "/api/campaigns/:id/duplicate",
      ({ user, params, set }) => {
        set.status = 201;
        return duplicateCampaign(ctx, user, params.id);
      },
      { auth: true, params: idParams },
    )
    // POST /api/campaigns/:id/send
    .post(
      "/api/campaigns/:id/send",
      async ({ user, params, body, set }) => {
        const result = await sendCampaignChecked(ctx, user, params.id, body?.scheduledAt ?? null, body?.acknowledgeRegistration === true);
        set.status = 202;
        return result;
      },
      {
        auth: true,
        params: idParams,
        body: t.Optional(t.Object({ scheduledAt: nullableText(40), acknowledgeRegistration: t.Optional(t.Boolean({ error: "acknowledgeRegistration must be true or false" })) })),
      },
    )
    // POST /api/campaigns/:id/pause
    .post("/api/campaigns/:id/pause", ({ user, params }) => pauseByUser(ctx, user.id, params.id), { auth: true, params: idParams })
    // POST /api/campaigns/:id/resume
    .post("/api/campaigns/:id/resume", ({ user, params }) => resumeByUser(ctx, user, params.id), { auth: true, params: idParams })
    // POST /api/campaigns/:id/send-held
    .post(
      "/api/campaigns/:id/send-held",
      async ({ user, params }) => {
        const { released, campaign } = await sendHeldNow(ctx, user, params.id);
        return { released, campaign: (await withQuietWait(ctx, user, [campaign]))[0] };
      },
      { auth: true, params: idParams },
    )
    // POST /api/campaigns/:id/cancel
    .post("/api/campaigns/:id/cancel", ({ user, params }) => cancelByUser(ctx, user.id, params.id), { auth: true, params: idParams })
    // POST /api/campaigns/bulk-delete
    .post(
      "/api/campaigns/bulk-delete",
      async ({ user, body }) => {
        const deleted = await deleteFinishedCampaigns(ctx, user.id, body.campaignIds);
        return { deleted, message: `${deleted} campaign${deleted === 1 ? "" : "s"} deleted` };
      },
      { auth: true, body: t.Object({ campaignIds: ids("campaignIds") }) },
    )
    // POST /api/campaigns/bulk-archive
    .post(
      "/api/campaigns/bulk-archive",
      async ({ user, body }) => {
        const archive = body.archive ?? true;
        const changed = await archiveCampaigns(ctx, user.id, body.campaignIds, archive);
        return { changed, message: `${changed} campaign${changed === 1 ? "" : "s"} ${archive ? "archived" : "restored"}` };
      },
      { auth: true, body: t.Object({ campaignIds: ids("campaignIds"), archive: t.Optional(t.Boolean()) }) },
    )
    // GET /api/campaign-logs
    .get(
      "/api/campaign-logs",
      ({ user, query }) => campaignLogs(ctx, user.id, { ...pageOf(query, 50), campaignId: query.campaignId, status: query.status }),
      {
        auth: true,
        query: t.Object({
          ...pagingQuery(200),
          campaignId: t.Optional(t.String({ maxLength: 64 })),
          status: t.Optional(
            t.Union(["pending", "sending", "sent", "delivered", "failed", "unknown", "skipped", "expired", "cancelled"].map((s) => t.Literal(s))),
          ),
        }),
      },
    )
    // GET /api/stats
    .get("/api/stats", ({ user }) => sendingStats(ctx, user.id), { auth: true });
}

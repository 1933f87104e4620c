import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { MAX_MEDIA_PER_MESSAGE } from "../media/media";
import { createDrip, deleteDrip, DRIP_SAMPLES, enrol, listDrips, listEnrolments, MAX_STEPS, removeEnrolment, toggleDrip, updateDrip } from "./drips";

const id = t.String({ maxLength: 64 });
const idParams = t.Object({ id });
const step = t.Object({
  delay: t.Integer({ minimum: 0, maximum: 365, error: "A step's delay is a whole number from 0 to 365" }),
  // Checked in the service so the message names the step.
  unit: t.String({ maxLength: 10 }),
  sendAtHour: t.Optional(t.Nullable(t.Integer({ minimum: 0, maximum: 23, error: "A send-at hour is from 0 to 23" }))),
  content: t.String({ maxLength: 1600, error: "A step's message is at most 1,600 characters" }),
  shortenLinks: t.Optional(t.Boolean({ error: "shortenLinks must be true or false" })),
  mediaIds: t.Optional(
    t.Array(t.String({ maxLength: 64 }), { maxItems: MAX_MEDIA_PER_MESSAGE, error: `A step's mediaIds lists at most ${MAX_MEDIA_PER_MESSAGE} uploads (POST /api/media)` }),
  ),
});
const fields = {
  name: t.Optional(t.String({ maxLength: 100, error: "Drip names are at most 100 characters" })),
  trigger: t.Optional(t.String({ maxLength: 40 })),
  steps: t.Optional(t.Array(step, { maxItems: MAX_STEPS, error: `A drip campaign has at most ${MAX_STEPS} steps` })),
  isActive: t.Optional(t.Boolean()),
  exitOnReply: t.Optional(t.Boolean()),
  goalTag: t.Optional(t.Nullable(t.String({ maxLength: 50 }))),
  segmentId: t.Optional(t.Nullable(id)),
  reentryDays: t.Optional(t.Nullable(t.Integer({ minimum: 1, maximum: 3650, error: "Re-entry is after 1 to 3,650 days, or never" }))),
  latePolicy: t.Optional(t.String({ maxLength: 10 })),
  lateAfterMinutes: t.Optional(t.Integer({ minimum: 1, maximum: 10_080, error: "A step counts as late after 1 minute to 7 days" })),
};

export function dripRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/drip-campaigns" })
    .use(authGuard(ctx))
    // GET /api/drip-campaigns
    .get("/", async ({ user }) => ({ data: await listDrips(ctx, user.id), samples: DRIP_SAMPLES }), { auth: true })
    // POST /api/drip-campaigns
    .post(
      "/",
      async ({ user, body, set }) => {
        const created = await createDrip(ctx, user.id, body);
        set.status = 201;
        return created;
      },
      { auth: true, body: t.Object(fields) },
    )
    // PUT /api/drip-campaigns/:id
    .put("/:id", ({ user, params, body }) => updateDrip(ctx, user.id, params.id, body), {
      auth: true,
      params: idParams,
      body: t.Object({ ...fields, applyToWaiting: t.Optional(t.Boolean()) }),
    })
    // DELETE /api/drip-campaigns/:id
    .delete(
      "/:id",
      async ({ user, params }) => {
        await deleteDrip(ctx, user.id, params.id);
        return { success: true };
      },
      { auth: true, params: idParams },
    )
    // POST /api/drip-campaigns/:id/toggle
    .post("/:id/toggle", ({ user, params }) => toggleDrip(ctx, user.id, params.id), { auth: true, params: idParams })
    // GET /api/drip-campaigns/:id/enrolments
    .get("/:id/enrolments", async ({ user, params, query }) => ({ data: await listEnrolments(ctx, user.id, params.id, query.limit ?? 200) }), {
      auth: true,
      params: idParams,
      query: t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, error: "limit must be a whole number from 1 to 1000" })) }),
    })
    // POST /api/drip-campaigns/:id/enrol
    .post("/:id/enrol", ({ user, params, body }) => enrol(ctx, user.id, params.id, body), {
      auth: true,
      params: idParams,
      body: t.Object({
        contactIds: t.Optional(t.Array(id, { maxItems: 10_000, error: "At most 10,000 contacts at a time" })),
        segmentId: t.Optional(id),
      }),
    })
    // DELETE /api/drip-campaigns/:id/enrolments/:enrolmentId
    .delete(
      "/:id/enrolments/:enrolmentId",
      async ({ user, params }) => {
        await removeEnrolment(ctx, user.id, params.id, params.enrolmentId);
        return { success: true };
      },
      { auth: true, params: t.Object({ id, enrolmentId: id }) },
    );
}

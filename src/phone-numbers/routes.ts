import { Elysia, t } from "elysia";
import { NUMBER_KINDS } from "../../db/schema";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { pageOf, pagingQuery } from "../http/paging";
import { patchBody } from "../http/patch-body";
import { addNumber, deleteNumber, listNumbers, updateNumber } from "./numbers";
import { refreshRegistrations, registrationOverview } from "./registration";

const kind = t.Union(NUMBER_KINDS.map((k) => t.Literal(k)), { error: "Kind must be long_code, toll_free, short_code or alphanumeric" });
const rate = t.Number({ minimum: 0, maximum: 10_000, error: "Messages per second must be a number from 0 to 10,000 (0: no limit)" });
const idParams = t.Object({ id: t.String({ maxLength: 64 }) });

export function phoneNumberRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/phone-numbers" })
    .use(authGuard(ctx))
    // GET /api/phone-numbers
    .get(
      "/",
      async ({ user, query }) => {
        const { page, pageSize } = pageOf(query, 50);
        return await listNumbers(ctx, user.id, page, pageSize);
      },
      { auth: true, query: t.Object(pagingQuery(100)) },
    )
    // POST /api/phone-numbers
    .post(
      "/",
      async ({ user, body, set }) => {
        if (!body.providerId) throw badRequest("Please choose an active provider");
        if (!body.phoneNumber?.trim()) throw badRequest("Phone number is required");
        const added = await addNumber(ctx, user.id, {
          providerId: body.providerId,
          phoneNumber: body.phoneNumber,
          displayName: body.displayName ?? undefined,
          isDefault: body.isDefault,
          kind: body.kind,
          messagesPerSecond: body.messagesPerSecond,
        });
        set.status = 201;
        return added;
      },
      {
        auth: true,
        body: t.Object({
          providerId: t.Optional(t.String({ maxLength: 64 })),
          phoneNumber: t.Optional(t.String({ maxLength: 40 })),
          displayName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
          isDefault: t.Optional(t.Boolean()),
          kind: t.Optional(kind),
          messagesPerSecond: t.Optional(rate),
        }),
      },
    )
    // PATCH /api/phone-numbers/:id
    .patch("/:id", async ({ user, params, body }) => await updateNumber(ctx, user.id, params.id, body), {
      auth: true,
      params: idParams,
      ...patchBody(
        t.Object({
          displayName: t.Optional(t.String({ maxLength: 100, error: "Display name must be text of at most 100 characters" })),
          messagesPerSecond: t.Optional(rate),
          isDefault: t.Optional(t.Boolean({ error: "isDefault must be true or false" })),
          isActive: t.Optional(t.Boolean({ error: "isActive must be true or false" })),
          kind: t.Optional(kind),
        }),
      ),
    })
    // GET /api/phone-numbers/registration
    .get("/registration", async ({ user }) => await registrationOverview(ctx, user.id), { auth: true })
    // POST /api/phone-numbers/registration/refresh
    .post(
      "/registration/refresh",
      async ({ user, body }) => {
        await refreshRegistrations(ctx, user.id, body?.providerId);
        return await registrationOverview(ctx, user.id);
      },
      { auth: true, body: t.Optional(t.Object({ providerId: t.Optional(t.String({ maxLength: 64 })) })) },
    )
    // DELETE /api/phone-numbers/:id
    .delete(
      "/:id",
      async ({ user, params }) => {
        await deleteNumber(ctx, user.id, params.id);
        return { message: "Phone number removed" };
      },
      { auth: true, params: idParams },
    );
}

import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { CUSTOMER_TYPES, DATE_FORMATS, GOALS, INDUSTRIES, LOCALES, TIMEZONES } from "./regional-options";
import { publicUser, saveOnboarding, updateUser } from "./queries";

const oneOf = (values: readonly string[], error: string) => t.Union(values.map((v) => t.Literal(v)), { error });

export function userRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/user" })
    .use(authGuard(ctx))
    .get("/settings", ({ user }) => ({ timezone: user.timezone, locale: user.locale, dateFormat: user.dateFormat }), {
      auth: true,
    })
    .patch(
      "/settings",
      ({ user, body }) => {
        const updated = updateUser(ctx, user.id, body);
        return { timezone: updated.timezone, locale: updated.locale, dateFormat: updated.dateFormat };
      },
      {
        auth: true,
        body: t.Object({
          timezone: t.Optional(oneOf(TIMEZONES.map((z) => z.value), "Please choose one of the offered timezones")),
          locale: t.Optional(oneOf(LOCALES.map((l) => l.value), "Please choose one of the offered languages")),
          dateFormat: t.Optional(oneOf(DATE_FORMATS, "Please choose one of the offered date formats")),
        }),
      },
    )
    .put(
      "/onboarding",
      ({ user, body }) =>
        publicUser(
          saveOnboarding(ctx, user.id, { ...body, businessName: body.businessName.trim(), goals: [...new Set(body.goals)] }),
        ),
      {
        auth: true,
        body: t.Object({
          businessName: t.String({ minLength: 1, maxLength: 120, pattern: "\\S", error: "Please enter your business name" }),
          industry: oneOf(INDUSTRIES, "Please choose your industry"),
          customerType: oneOf(CUSTOMER_TYPES.map((c) => c.value), "Please choose your customer type"),
          goals: t.Array(oneOf(GOALS.map((g) => g.value), "Unknown goal"), {
            minItems: 1,
            maxItems: GOALS.length * 2,
            error: "Please choose at least one goal",
          }),
        }),
      },
    );
}

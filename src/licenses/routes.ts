import { Elysia, t } from "elysia";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { currentLicense, licenseView, listPlans, planView, redeemLicenseCode } from "./licenses";
import { usageFor } from "./limits";

export function licenseRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/license" })
    .use(authGuard(ctx))
    // GET /api/license/plans
    .get("/plans", async () => ({ data: (await listPlans(ctx)).map(planView) }))
    // GET /api/license/current
    .get("/current", async ({ user }) => ({ data: licenseView(await currentLicense(ctx, user)) }), { auth: true })
    // GET /api/license/usage
    .get(
      "/usage",
      async ({ user }) => {
        const { contacts, messages, phoneNumbers } = await usageFor(ctx, user);
        return { data: { contacts, messages, phoneNumbers } };
      },
      { auth: true },
    )
    // POST /api/license/redeem
    .post(
      "/redeem",
      async ({ user, body }) => {
        const result = await redeemLicenseCode(ctx, user.id, body.licenseCode);
        return {
          success: true,
          message: `Your ${result.planName} plan is active until ${result.expiresAt.toISOString().slice(0, 10)}.`,
          data: { planName: result.planName, planId: result.plan.id, expiresAt: result.expiresAt.toISOString() },
        };
      },
      { auth: true, body: t.Object({ licenseCode: t.Optional(t.Nullable(t.String({ maxLength: 64, error: "Please enter a valid license code" }))) }) },
    );
}

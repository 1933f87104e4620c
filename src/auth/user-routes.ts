import { Elysia, t } from "elysia";
import { authGuard } from "./guard";
import { changePassword } from "./password-reset";
import { keepCredentialsField, outcomeView } from "./session-credentials";
import { clientIp } from "../http/client-ip";
import { MIN_PASSWORD_LENGTH } from "./passwords";
import type { AppContext } from "../context";
import { CUSTOMER_TYPES, DATE_FORMATS, GOALS, INDUSTRIES, LOCALES, TIMEZONES } from "../../shared/users/regional-options";
import { badRequest } from "../http/errors";
import { publicUser, saveOnboarding, updateUser, type User } from "../users/queries";
import { HELP_REPLY_MAX, helpReplyFields, helpReplyView, parseLinkDomain, profileView, updateProfile } from "../users/profile";
import { cancelEmailChange, confirmEmailChange, pendingEmailOf, requestEmailChange } from "./email-change";
import { requireRecentConfirmation } from "./reauth";
import { defaultCountryOf } from "../users/default-country";
import { isKnownRegion } from "../contacts/phones";

const CLOCK = "^([01]\\d|2[0-3]):[0-5]\\d$";

/** Regional settings (platform.md) and the sending compliance settings (quiet hours, opt-out line, frequency cap). */
async function settingsView(ctx: AppContext, user: User) {
  return {
    timezone: user.timezone,
    locale: user.locale,
    dateFormat: user.dateFormat,
    quietHoursEnabled: user.quietHoursEnabled,
    quietHoursStart: user.quietHoursStart,
    quietHoursEnd: user.quietHoursEnd,
    appendOptOut: user.appendOptOut,
    frequencyCapPerDay: user.frequencyCapPerDay,
    /** The country of numbers written without "+", and whether the user chose it (else it is derived). */
    defaultCountry: await defaultCountryOf(ctx, user),
    defaultCountryChosen: user.defaultCountry !== null,
    ...helpReplyView(user),
    /** The origin this account's short links go out on (null: the installation's, linkDomainDefault). */
    linkDomain: user.linkDomain,
    linkDomainDefault: ctx.config.linkDomain,
  };
}

const oneOf = (values: readonly string[], error: string) => t.Union(values.map((v) => t.Literal(v)), { error });

export function userRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/user" })
    .use(authGuard(ctx))
    // GET /api/user/settings
    .get("/settings", ({ user }) => settingsView(ctx, user), { auth: true })
    // PATCH /api/user/settings
    .patch(
      "/settings",
      async ({ user, body }) => {
        if (body.quietHoursStart !== undefined && body.quietHoursStart === (body.quietHoursEnd ?? user.quietHoursEnd)) {
          throw badRequest("Quiet hours must start and end at different times");
        }
        if (body.quietHoursEnd !== undefined && body.quietHoursEnd === (body.quietHoursStart ?? user.quietHoursStart)) {
          throw badRequest("Quiet hours must start and end at different times");
        }
        if (body.defaultCountry !== undefined && !isKnownRegion(body.defaultCountry)) throw badRequest("Please choose a valid country");
        const defaultCountry = body.defaultCountry?.toUpperCase();
        const { helpReply, linkDomain: typedDomain, ...rest } = body;
        const linkDomain = typedDomain === undefined ? {} : parseLinkDomain(typedDomain ?? "");
        if (!linkDomain) throw badRequest("The link domain must be an address such as https://go.example.com, without a path");
        const fields = { ...rest, ...linkDomain, ...(defaultCountry ? { defaultCountry } : {}), ...(helpReply !== undefined ? helpReplyFields(user, helpReply) : {}) };
        const updated = await updateUser(ctx, user.id, fields);
        // Quiet hours turned off (or moved) let go what they held: it goes now, or waits for the new window's end.
        const quietChanged =
          updated.quietHoursEnabled !== user.quietHoursEnabled ||
          updated.quietHoursStart !== user.quietHoursStart ||
          updated.quietHoursEnd !== user.quietHoursEnd ||
          updated.timezone !== user.timezone;
        return { ...(await settingsView(ctx, updated)), releasedHeld: quietChanged ? await ctx.releaseHeldMessages(user.id) : 0 };
      },
      {
        auth: true,
        body: t.Object({
          timezone: t.Optional(oneOf(TIMEZONES.map((z) => z.value), "Please choose one of the offered timezones")),
          locale: t.Optional(oneOf(LOCALES.map((l) => l.value), "Please choose one of the offered languages")),
          dateFormat: t.Optional(oneOf(DATE_FORMATS, "Please choose one of the offered date formats")),
          quietHoursEnabled: t.Optional(t.Boolean()),
          quietHoursStart: t.Optional(t.String({ pattern: CLOCK, error: "Quiet hours start must be a time like 21:00" })),
          quietHoursEnd: t.Optional(t.String({ pattern: CLOCK, error: "Quiet hours end must be a time like 08:00" })),
          appendOptOut: t.Optional(t.Boolean()),
          frequencyCapPerDay: t.Optional(t.Nullable(t.Integer({ minimum: 1, maximum: 100, error: "The frequency cap must be 1 to 100 messages a day, or empty" }))),
          defaultCountry: t.Optional(t.String({ minLength: 2, maxLength: 2, error: "Please choose a valid country" })),
          // Empty: the installation's (LINK_DOMAIN, else PUBLIC_URL).
          // Null is what GET answers for "the installation's": a settings form sends back what it was given.
          linkDomain: t.Optional(t.Union([t.String({ maxLength: 200 }), t.Null()], { error: "The link domain must be at most 200 characters" })),
          // Empty: the default.
          helpReply: t.Optional(t.String({ maxLength: HELP_REPLY_MAX, error: `The HELP reply must be at most ${HELP_REPLY_MAX} characters` })),
        }),
      },
    )
    // GET /api/user/profile
    .get("/profile", async ({ user }) => profileView(user, await pendingEmailOf(ctx, user)), { auth: true })
    // PATCH /api/user/profile
    .patch("/profile", async ({ user, body }) => profileView(await updateProfile(ctx, user, body), await pendingEmailOf(ctx, user)), {
      auth: true,
      body: t.Object({
        firstName: t.Optional(t.String({ maxLength: 100, error: "First name must be at most 100 characters" })),
        lastName: t.Optional(t.String({ maxLength: 100, error: "Last name must be at most 100 characters" })),
        businessName: t.Optional(t.String({ maxLength: 120, error: "The business name must be at most 120 characters" })),
        industry: t.Optional(t.String({ maxLength: 60, error: "Please choose your industry" })),
        businessContact: t.Optional(t.String({ maxLength: 100, error: "The contact for HELP replies must be at most 100 characters" })),
      }),
    })
    // POST /api/user/email
    .post(
      "/email",
      async ({ user, sessionId, body }) => {
        await requireRecentConfirmation(ctx, user, sessionId, "to change your email");
        const { pendingEmail, retryAfter } = await requestEmailChange(ctx, user, body.email);
        return { message: `We sent a code to ${pendingEmail}. Enter it to make it your email.`, pendingEmail, retryAfter };
      },
      { auth: true, body: t.Object({ email: t.String({ maxLength: 254, error: "Please enter a valid email address" }) }) },
    )
    // POST /api/user/email/confirm
    .post(
      "/email/confirm",
      async ({ user, body }) => {
        const changed = await confirmEmailChange(ctx, user, body.code.trim());
        return { message: `Your email is now ${changed.email}`, user: publicUser(changed), profile: profileView(changed, null) };
      },
      { auth: true, body: t.Object({ code: t.String({ maxLength: 20, error: "Please enter the 6-digit code" }) }) },
    )
    // DELETE /api/user/email
    .delete(
      "/email",
      async ({ user }) => {
        await cancelEmailChange(ctx, user.id);
        return profileView(user, null);
      },
      { auth: true },
    )
    // POST /api/user/password
    .post(
      "/password",
      async ({ user, sessionId, body, request }) => {
        if (!user.passwordHash) throw badRequest("Your account signs in with Google and has no password to change");
        if (!body.currentPassword) throw badRequest("Please enter your current password");
        if (!body.newPassword) throw badRequest("Please enter a new password");
        if (body.newPassword.length < MIN_PASSWORD_LENGTH) throw badRequest(`Password must be at least ${MIN_PASSWORD_LENGTH} characters long`);
        if (body.confirmPassword != null && body.confirmPassword !== body.newPassword) throw badRequest("Passwords do not match");
        const outcome = await changePassword(
          ctx,
          user,
          { current: body.currentPassword, next: body.newPassword },
          { sessionId, address: clientIp(request), credentials: body.keepCredentials ?? false },
        );
        const credentials = outcomeView(outcome);
        const message = ["Your password has been changed. Your other sessions have been signed out.", credentials.summary].filter(Boolean).join(" ");
        return { success: true, message, credentials };
      },
      {
        auth: true,
        body: t.Object({
          currentPassword: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
          newPassword: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
          confirmPassword: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
          keepCredentials: keepCredentialsField,
        }),
      },
    )
    // PUT /api/user/onboarding
    .put(
      "/onboarding",
      async ({ user, body }) => {
        if (body.defaultCountry !== undefined && !isKnownRegion(body.defaultCountry)) throw badRequest("Please choose a valid country");
        const defaultCountry = body.defaultCountry?.toUpperCase();
        return publicUser(
          await saveOnboarding(ctx, user.id, { ...body, businessName: body.businessName.trim(), goals: [...new Set(body.goals)], ...(defaultCountry ? { defaultCountry } : {}) }),
        );
      },
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
          // Asked at the end of the wizard, pre-filled from the browser.
          timezone: t.Optional(oneOf(TIMEZONES.map((z) => z.value), "Please choose one of the offered timezones")),
          defaultCountry: t.Optional(t.String({ minLength: 2, maxLength: 2, error: "Please choose a valid country" })),
        }),
      },
    );
}

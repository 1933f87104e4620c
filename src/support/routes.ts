import { Elysia, t } from "elysia";
import { optionalUserId } from "../auth/guard";
import { SESSION_COOKIE } from "../auth/sessions";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { storeContactMessage } from "./messages";

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const text = (max: number) => t.Optional(t.Nullable(t.String({ maxLength: max })));

/**
 * The public contact form: stored for the administrators to read in the admin portal. Limited per address
 * (src/http/rate-limit.ts) and in total per day (storeContactMessage).
 */
export function supportRoutes(ctx: AppContext) {
  // POST /api/contact
  return new Elysia().post(
    "/api/contact",
    async ({ body, headers, cookie, set }) => {
      const name = body.name?.trim() ?? "";
      const email = body.email?.trim() ?? "";
      const subject = body.subject?.trim() ?? "";
      const message = body.message?.trim() ?? "";
      if (!name || !email || !subject || !message) throw badRequest("Please fill in all required fields");
      if (!EMAIL_RE.test(email)) throw badRequest("Please enter a valid email address");
      const id = await storeContactMessage(ctx, {
        userId: await optionalUserId(ctx, headers, cookie[SESSION_COOKIE]?.value),
        name,
        email,
        company: body.company?.trim() || null,
        phone: body.phone?.trim() || null,
        subject,
        message,
        priority: body.priority ?? "normal",
      });
      set.status = 201;
      return { success: true, id, message: "We'll get back to you within 24 hours." };
    },
    {
      body: t.Object({
        name: text(200),
        email: text(254),
        company: text(200),
        phone: text(40),
        subject: text(300),
        message: text(10_000),
        priority: t.Optional(
          t.Union([t.Literal("low"), t.Literal("normal"), t.Literal("high"), t.Literal("critical")], {
            error: "Priority must be low, normal, high or critical",
          }),
        ),
      }),
    },
  );
}

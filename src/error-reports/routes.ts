import { Elysia, t } from "elysia";
import { errorReports } from "../../db/schema";
import { optionalUserId } from "../auth/guard";
import { SESSION_COOKIE } from "../auth/sessions";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";

const clip = (value: string | null | undefined, max: number) => (value ? value.slice(0, max) : null);
const field = t.Optional(t.Nullable(t.String()));
const report = t.Object({
  message: field,
  stack: field,
  componentStack: field,
  timestamp: field,
  userAgent: field,
  url: field,
  type: field,
});

/**
 * 'Notify to Fix' from any error screen, signed in or not. Under /api/admin because the spec puts it
 * there, but open to everyone; the administrators read the reports in the admin portal.
 */
export function errorReportRoutes(ctx: AppContext) {
  return new Elysia().post(
    "/api/admin/report-error",
    ({ body, headers, cookie, set }) => {
      const r = body.errorReport ?? body.error;
      if (!r?.message?.trim()) throw badRequest("An error report needs a message");
      const row = ctx.db
        .insert(errorReports)
        .values({
          id: crypto.randomUUID(),
          userId: optionalUserId(ctx, headers, cookie[SESSION_COOKIE]?.value),
          type: clip(r.type, 60) ?? (body.error ? "mobile_error" : "react_error"),
          message: clip(r.message, 2_000)!,
          stack: clip(r.stack, 20_000),
          componentStack: clip(r.componentStack, 20_000),
          url: clip(r.url, 2_000),
          userAgent: clip(r.userAgent ?? headers["user-agent"], 500),
          occurredAt: clip(r.timestamp, 40),
        })
        .returning({ id: errorReports.id })
        .get();
      set.status = 201;
      return { success: true, id: row.id };
    },
    { body: t.Object({ errorReport: t.Optional(report), error: t.Optional(report) }) },
  );
}

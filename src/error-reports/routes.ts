import { Elysia, t } from "elysia";
import { optionalUserId } from "../auth/guard";
import { SESSION_COOKIE } from "../auth/sessions";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { storeErrorReport } from "./reports";

// Stored clipped (a long stack still reports its top); anything far beyond what a browser produces is refused.
const clip = (value: string | null | undefined, max: number) => (value ? value.slice(0, max) : null);
const field = (maxLength: number) => t.Optional(t.Nullable(t.String({ maxLength })));
const report = t.Object({
  message: field(10_000),
  stack: field(100_000),
  componentStack: field(100_000),
  timestamp: field(100),
  userAgent: field(2_000),
  url: field(10_000),
  type: field(100),
});

/**
 * 'Notify to Fix' from any error screen, signed in or not. Under /api/admin because the spec puts it
 * there, but open to everyone; the administrators read the reports in the admin portal. Limited per address
 * (src/http/rate-limit.ts), per day and in total (storeErrorReport).
 */
export function errorReportRoutes(ctx: AppContext) {
  // POST /api/admin/report-error
  return new Elysia().post(
    "/api/admin/report-error",
    async ({ body, headers, cookie, set }) => {
      const r = body.errorReport ?? body.error;
      if (!r?.message?.trim()) throw badRequest("An error report needs a message");
      const id = await storeErrorReport(ctx, {
        userId: await optionalUserId(ctx, headers, cookie[SESSION_COOKIE]?.value),
        type: clip(r.type, 60) ?? (body.error ? "mobile_error" : "react_error"),
        message: clip(r.message, 2_000)!,
        stack: clip(r.stack, 20_000),
        componentStack: clip(r.componentStack, 20_000),
        url: clip(r.url, 2_000),
        userAgent: clip(r.userAgent ?? headers["user-agent"], 500),
        occurredAt: clip(r.timestamp, 40),
      });
      set.status = 201;
      return { success: true, id };
    },
    { body: t.Object({ errorReport: t.Optional(report), error: t.Optional(report) }) },
  );
}

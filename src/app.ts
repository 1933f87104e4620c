import { TransformDecodeError } from "@sinclair/typebox/value";
import { Elysia } from "elysia";
import { adminRoutes } from "./admin/routes";
import { backupRoutes } from "./backups/routes";
import { analyticsRoutes } from "./analytics/routes";
import { apiKeyRoutes } from "./api-keys/routes";
import { googleRoutes } from "./auth/google-routes";
import { passkeyRoutes } from "./auth/passkey-routes";
import { rateWindowsOf } from "./auth/rate-windows";
import { authRoutes } from "./auth/routes";
import { licenseAtSignUp } from "./licenses/licenses";
import { twoFactorRoutes } from "./auth/two-factor-routes";
import type { AppContext } from "./context";
import { errorReportRoutes } from "./error-reports/routes";
import { healthRoutes } from "./health/routes";
import { metricsRoutes } from "./metrics/routes";
import { csrf } from "./http/csrf";
import { errorCode, HttpError } from "./http/errors";
import { rejectNul } from "./http/nul";
import { rateLimit } from "./http/rate-limit";
import { keywordRoutes } from "./keywords/routes";
import { automationRoutes } from "./automation/routes";
import { licenseRoutes } from "./licenses/routes";
import { contactRoutes } from "./contacts/routes";
import { conversationRoutes } from "./conversations/routes";
import { campaignRoutes } from "./campaigns/routes";
import { stateRuleRoutes } from "./state-rules/routes";
import { messageRoutes } from "./conversations/message-routes";
import { phoneNumberRoutes } from "./phone-numbers/routes";
import { providerRoutes } from "./providers/routes";
import { providerWebhookRoutes } from "./inbound/webhook-routes";
import { resultsRoutes } from "./results/routes";
import { outboundWebhookRoutes } from "./outbound-webhooks/routes";
import { openApiRoutes } from "./public-api/openapi";
import { publicApiRoutes } from "./public-api/routes";
import { segmentRoutes } from "./segments/routes";
import { templateRoutes } from "./templates/routes";
import { dripRoutes } from "./drips/routes";
import { signedUrlsOfUploads } from "./media/media";
import { mediaRoutes } from "./media/routes";
import { supportRoutes } from "./support/routes";
import { userRoutes } from "./auth/user-routes";

type ValueErrorLike = {
  path?: string;
  message?: string;
  value?: unknown;
  schema?: { type?: string; format?: string; const?: unknown; anyOf?: { type?: string; const?: unknown }[] };
  /** Each member's errors, for a union ("Expected union value"). */
  errors?: { First(): ValueErrorLike | undefined }[];
};
type ValidationLike = { customError?: unknown; valueError?: ValueErrorLike };

/** A JSON value's type as a schema names it ("integer" is a number). */
const jsonType = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** TypeBox says "Expected union value" for a wrong type on an optional or nullable field; name the types instead. */
function validationMessage(v: ValidationLike): string {
  const message = v.valueError?.message ?? "unexpected value";
  // A value of the member's own type that breaks its bounds (a string too long for a nullable field, 0 for a whole
  // number from 1) is told those bounds, not "expected string". Elysia's number-in-a-string members (a format) are not.
  const sameType = v.valueError?.errors
    ?.map((member) => member.First())
    .find(
      (e) =>
        e?.schema?.type && !e.schema.format && e.schema.const === undefined && (e.schema.type === "integer" ? "number" : e.schema.type) === jsonType(v.valueError?.value),
    );
  if (message === "Expected union value" && sameType?.message) return sameType.message;
  // A choice of fixed values (?status=bogus) names them.
  const choices = v.valueError?.schema?.anyOf?.map((s) => s.const);
  if (message === "Expected union value" && choices?.length && choices.every((c) => c !== undefined)) return `expected one of ${choices.join(", ")}`;
  const types = v.valueError?.schema?.anyOf?.map((s) => s.type).filter((t): t is string => !!t && t !== "null");
  if (message === "Expected union value" && types?.length) return `expected ${[...new Set(types)].join(" or ")}`;
  return message;
}

/**
 * Turns whatever a route threw into `{message, code, ...extra}` with the right status; the one place that does.
 * `code` is the machine code of src/http/errors.ts, the same for every error of a kind.
 */
function errorBody(code: string | number, error: unknown): { status: number; body: Record<string, unknown>; headers?: Record<string, string> } {
  const answer = errorAnswer(code, error);
  return { ...answer, body: { ...answer.body, code: answer.body.code ?? errorCode(answer.status) } };
}

function errorAnswer(code: string | number, error: unknown): { status: number; body: Record<string, unknown>; headers?: Record<string, string> } {
  // The auth guard refuses a caller before the body is read, from Elysia's parse phase, which wraps what it throws.
  if (code === "PARSE" && (error as Error).cause instanceof HttpError) error = (error as Error).cause;
  if (error instanceof HttpError) return { status: error.status, body: { message: error.message, ...error.extra }, headers: error.headers };
  switch (code) {
    case "VALIDATION": {
      const v = error as ValidationLike;
      if (typeof v.customError === "string") return { status: 400, body: { message: v.customError } };
      const field = v.valueError?.path?.replace(/^\//, "").replaceAll("/", ".");
      // The body itself of the wrong type ([1, 2], "text", 5): said as the auth guard and PATCH routes say it.
      if (!field && v.valueError?.message === "Expected object") return { status: 400, body: { message: "The request body must be a JSON object" } };
      return { status: 400, body: { message: `Invalid ${field || "request"}: ${validationMessage(v)}` } };
    }
    case "PARSE":
      return { status: 400, body: { message: "The request body is not valid JSON" } };
    case "NOT_FOUND":
      return { status: 404, body: { message: "Not found" } };
    case "INVALID_COOKIE_SIGNATURE":
      return { status: 401, body: { message: "Unauthorized" } };
  }
  const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : 500;
  if (status >= 400 && status < 500) return { status, body: { message: (error as Error).message || "Bad request" } };
  return { status: 500, body: { message: "An unexpected error occurred" } };
}

// Elysia tells a failed transform (a number in a query or body outside its bounds: ?page=1e99, {"days":"99999"}) by
// its class's name (`error.constructor.name === 'TransformDecodeError'`) and swallows any other error there, passing
// the raw string on unchecked. The executable's minifier renames classes (Bun's keepNames does not keep this one), so
// there every such bound was skipped (page=1e99 answered 500, page=100001 was served): the name is given back here.
Object.defineProperty(TransformDecodeError, "name", { value: "TransformDecodeError" });

export function createApp(ctx: AppContext) {
  // Elysia's default normalizer (exact-mirror) runs before validation and turns a string, number or array sent for
  // an object field into {} (and a string for a record into a key per character), so {"settings":"x"} passed as
  // an empty change; TypeBox's only drops unknown properties, and validation then answers "Expected object".
  return new Elysia({ normalize: "typebox" })
    .onError({ as: "global" }, ({ code, error, set, request }) => {
      const { status, body, headers } = errorBody(code, error);
      if (status >= 500) ctx.log(`error ${request.method} ${new URL(request.url).pathname}: ${(error as Error)?.stack ?? error}`);
      set.status = status;
      Object.assign(set.headers, headers);
      return body;
    })
    .use(rateLimit(ctx, rateWindowsOf(ctx)))
    .use(csrf(ctx))
    .onTransform({ as: "global" }, rejectNul)
    .use(healthRoutes(ctx))
    .use(authRoutes(ctx, (userId, code) => licenseAtSignUp(ctx, userId, code)))
    .use(twoFactorRoutes(ctx))
    .use(passkeyRoutes(ctx))
    .use(googleRoutes(ctx))
    .use(userRoutes(ctx))
    .use(analyticsRoutes(ctx))
    .use(resultsRoutes(ctx))
    .use(supportRoutes(ctx))
    .use(errorReportRoutes(ctx))
    .use(licenseRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(backupRoutes(ctx))
    .use(metricsRoutes(ctx))
    .use(contactRoutes(ctx))
    .use(segmentRoutes(ctx))
    .use(keywordRoutes(ctx))
    .use(templateRoutes(ctx))
    .use(automationRoutes(ctx))
    .use(dripRoutes(ctx))
    .use(providerRoutes(ctx, (userId, ids) => signedUrlsOfUploads(ctx, userId, ids)))
    .use(phoneNumberRoutes(ctx))
    .use(providerWebhookRoutes(ctx))
    .use(outboundWebhookRoutes(ctx))
    .use(mediaRoutes(ctx))
    .use(conversationRoutes(ctx))
    .use(messageRoutes(ctx))
    .use(campaignRoutes(ctx))
    .use(stateRuleRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(publicApiRoutes(ctx))
    .use(openApiRoutes(ctx))
    // GET /api/login
    .get("/api/login", ({ redirect }) => redirect("/auth", 302));
}

export type App = ReturnType<typeof createApp>;

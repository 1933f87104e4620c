import type { TObject } from "@sinclair/typebox";
import { badRequest } from "./errors";

/**
 * The body hooks of a PATCH route: a JSON object naming at least one of the schema's fields and no other.
 * The check runs as a transform, before validation: Elysia's validation silently drops fields the schema does
 * not name, so `{}` and `{"typo": 1}` would otherwise reach the route as an empty change.
 */
export function patchBody<T extends TObject>(schema: T) {
  const known = Object.keys(schema.properties);
  return {
    body: schema,
    transform: (context: { body: unknown }) => {
      const body = context.body;
      if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("The request body must be a JSON object");
      const fields = Object.keys(body);
      const unknown = fields.find((f) => !known.includes(f));
      if (unknown !== undefined) throw badRequest(`Unknown field ${unknown.slice(0, 100)}: send only ${known.join(", ")}`);
      if (!fields.length) throw badRequest(`Nothing to update: send at least one of ${known.join(", ")}`);
    },
  };
}

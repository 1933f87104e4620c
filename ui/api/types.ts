/**
 * The server's answers as the browser receives them, read from the route table's types (type-only: nothing of the
 * server reaches the bundle). A change to what a route returns fails the type check of the screen that reads it.
 */
// The one import of src/ in ui/ (tests/api/ui-api-layer.test.ts): the route table's type is the app itself, which
// only the server's code can describe; it is type-only, so nothing of the server reaches the bundle. Everything
// else the screens share with the server is in shared/.
import type { App } from "../../src/app";

/** Every route, by URL segment then method: `Routes["api"]["contacts"]["get"]`. */
export type Routes = App["~Routes"];

/** A value after JSON.stringify and JSON.parse: its dates become ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer U)[]
      ? Json<U>[]
      : T extends object
        ? { [K in keyof T]: Json<T[K]> }
        : T;

/** The body a route answers with on success (200), as JSON. */
export type Ok<R> = R extends { response: infer Res } ? (200 extends keyof Res ? Json<Res[200]> : never) : never;

/** A query string of the defined values, with its leading "?" (empty when none). */
export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}

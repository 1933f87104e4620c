import { Elysia } from "elysia";
import { OptionalKind } from "@sinclair/typebox";
import type { AppContext } from "../context";
import { API_SCOPES } from "../api-keys/keys";
import { SCHEMAS, type OperationSpec } from "./contract";
import { KEY_QUOTA, KEY_WINDOW_MS } from "./guard";
import { publicApiRoutes } from "./routes";

type Json = Record<string, unknown>;
type Parameter = { name: string; in: "path" | "query" | "header"; required: boolean; description?: string; schema: Json };
type Operation = {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
  security: { apiKey: string[] }[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Partial<Record<"application/json" | "application/octet-stream", { schema: Json }>> };
  responses: Record<string, { description: string; headers?: Json; content?: { "application/json": { schema: Json } } }>;
};
type Document = {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string; license: { name: string; identifier: string } };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  security: { apiKey: string[] }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Json; headers: Json; responses: Record<string, Json> };
};

const TAGS: Record<string, string> = {
  Contacts: "The people you text: one per phone number, with tags and custom fields",
  "Opt-outs": "Phones that must not be texted",
  Messages: "Single texts and their delivery",
  Campaigns: "Texts to a segment or a list of contacts",
  Segments: "Saved audiences",
  Keywords: "Text-to-join keywords",
  Events: "What happened in your own system, for automation rules",
};

const namesByShape = new Map(Object.entries(SCHEMAS).map(([name, s]) => [JSON.stringify(s), name]));

/**
 * A TypeBox schema as plain JSON Schema 2020-12 (OpenAPI 3.1's dialect), with known shapes as references. TypeBox
 * and Elysia add keywords no OpenAPI tool knows: `error` (the message of a failed check), `nullable` (next to the
 * anyOf with null that says it), and a string branch on numbers that lets a query's "5" pass as 5; they are left
 * out. Symbol keys (TypeBox's kind) vanish with JSON.
 */
function plain(s: unknown, top = false): unknown {
  if (Array.isArray(s)) return s.map((x) => plain(x));
  if (!s || typeof s !== "object") return s;
  const name = top ? undefined : namesByShape.get(JSON.stringify(s));
  if (name) return { $ref: `#/components/schemas/${name}` };
  const o = s as Json;
  const branches = o.anyOf as Json[] | undefined;
  const numeric = branches?.filter((b) => !(b.type === "string" && (b.format === "integer" || b.format === "numeric")));
  if (branches && numeric!.length === 1 && branches.length === 2) {
    const { anyOf: _, ...rest } = o;
    return plain({ ...rest, ...numeric![0] });
  }
  // TypeBox writes a record as one catch-all pattern; additionalProperties says the same to generators.
  const patterns = o.patternProperties as Json | undefined;
  if (patterns && Object.keys(patterns).length === 1 && "^(.*)$" in patterns) {
    const { patternProperties: _, ...rest } = o;
    return plain({ ...rest, additionalProperties: patterns["^(.*)$"] });
  }
  return Object.fromEntries(
    Object.entries(o)
      .filter(([k]) => k !== "error" && k !== "nullable")
      .map(([k, v]) =>
        // Under properties the names are fields (a media item's "error"), not keywords: every one is kept.
        k === "properties" && v && typeof v === "object" ? [k, Object.fromEntries(Object.entries(v as Json).map(([n, p]) => [n, plain(p)]))] : [k, plain(v)],
      ),
  );
}

type Schema = { properties?: Record<string, Json>; required?: string[] };

function parametersOf(where: Parameter["in"], schema: unknown): Parameter[] {
  const s = plain(schema, true) as Schema | undefined;
  return Object.entries(s?.properties ?? {}).map(([name, p]) => {
    const { description, ...rest } = p as Json;
    const param: Parameter = { name, in: where, required: where === "path" || (s!.required ?? []).includes(name), schema: rest };
    if (typeof description === "string") param.description = description;
    return param;
  });
}

const PARAMETER_TEXT: Record<string, string> = {
  cursor: "The nextCursor of the page before; leave it out for the first page",
  limit: "Items per page (default 50)",
  id: "The id the API answered when it was made",
  "Idempotency-Key": "Any unique text (an order number): a retry with the same key and body answers the first answer and does nothing again (24 h)",
};

const errorAnswer = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/** The error answers an operation may give: those of every key-guarded call, then those its input and path allow. */
function errorsOf(spec: OperationSpec, method: string, path: string, hasInput: boolean): Record<string, Json> {
  const out: Record<string, Json> = {
    401: { $ref: "#/components/responses/Unauthorized" },
    403: { $ref: "#/components/responses/Forbidden" },
    429: { $ref: "#/components/responses/RateLimited" },
  };
  if (hasInput) out[400] = errorAnswer("The input is invalid: the message names the field");
  if (path.includes("{id}")) out[404] = errorAnswer("No such item in this account");
  if (method === "post") out[422] = errorAnswer("This Idempotency-Key was already used for a different request");
  for (const [status, e] of Object.entries(spec.errors ?? {}))
    out[status] =
      typeof e === "string" ? errorAnswer(e) : { description: e.description, content: { "application/json": { schema: plain(e.body) as Json } } };
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => Number(a) - Number(b)));
}

const RATE_HEADERS = {
  RateLimit: { $ref: "#/components/headers/RateLimit" },
  "RateLimit-Policy": { $ref: "#/components/headers/RateLimitPolicy" },
};

/**
 * The OpenAPI 3.1 document of /api/v1, built from the routes: their input schemas and the contract each one
 * declares (permission, answers). An operation's answers are its successes, then its errors, all with bodies.
 */
export function publicApiDocument(ctx: AppContext): Document {
  const paths: Document["paths"] = {};
  for (const route of publicApiRoutes(ctx).routes) {
    const spec = (route.hooks.detail as { contract: OperationSpec }).contract;
    const method = route.method.toLowerCase();
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const parameters = [
      ...parametersOf("path", route.hooks.params),
      ...parametersOf("query", route.hooks.query),
      ...parametersOf("header", route.hooks.headers).map((p) => ({ ...p, name: p.name === "idempotency-key" ? "Idempotency-Key" : p.name })),
    ].map((p) => (p.description || !PARAMETER_TEXT[p.name] ? p : { ...p, description: PARAMETER_TEXT[p.name] }));
    const op: Operation = {
      operationId: spec.operationId,
      tags: [spec.tag],
      summary: spec.summary,
      description: [spec.description, `Needs the ${spec.scope} permission.`].filter(Boolean).join(" "),
      security: [{ apiKey: [spec.scope] }],
      responses: {
        ...Object.fromEntries(
          Object.entries(spec.ok).map(([status, r]) => [status, { description: r.description, headers: RATE_HEADERS, content: { "application/json": { schema: plain(r.body) as Json } } }]),
        ),
        ...errorsOf(spec, method, path, parameters.some((p) => p.in !== "header") || !!route.hooks.body),
      } as Operation["responses"],
    };
    if (parameters.length) op.parameters = parameters;
    // An optional body (TypeBox's Optional mark) may be left out: POST /campaigns/{id}/send with nothing to acknowledge.
    const optional = !!route.hooks.body && (route.hooks.body as Record<symbol, unknown>)[OptionalKind] === "Optional";
    if (route.hooks.body)
      op.requestBody = { required: !optional, content: { "application/json": { schema: plain(route.hooks.body, true) as Json } } };
    if (spec.rawBody) op.requestBody = { required: true, content: { "application/octet-stream": { schema: { type: "string", format: "binary", description: spec.rawBody } } } };
    (paths[path] ??= {})[method] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "smsdesk public API",
      version: "1",
      description:
        `Authenticate with 'Authorization: Bearer sk_live_...' (create keys under Integrations; permissions: ${API_SCOPES.join(", ")}). ` +
        `Each key may make ${KEY_QUOTA} requests per ${KEY_WINDOW_MS / 1000} s (RateLimit-Policy and RateLimit headers; 429 with Retry-After beyond). ` +
        "Lists are paged with an opaque cursor: pass back nextCursor until it is null.",
      license: { name: "Proprietary", identifier: "LicenseRef-smsdesk" },
    },
    servers: [{ url: ctx.config.publicUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(SCHEMAS).map(([name, s]) => [name, plain(s, true) as Json])),
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key, sk_live_…, with the permissions the operation names" } },
      headers: {
        RateLimit: { description: 'Requests left in this window and seconds until it resets: "default";r=99;t=10', schema: { type: "string" } },
        RateLimitPolicy: { description: `The key's quota: "default";q=${KEY_QUOTA};w=${KEY_WINDOW_MS / 1000}`, schema: { type: "string" } },
      },
      responses: {
        Unauthorized: errorAnswer("No API key, or one unknown, revoked or expired"),
        Forbidden: errorAnswer("The API key lacks the permission this operation needs"),
        RateLimited: {
          ...errorAnswer(`The key made more than ${KEY_QUOTA} requests in ${KEY_WINDOW_MS / 1000} s`),
          headers: { "Retry-After": { description: "Seconds until the key may call again", schema: { type: "integer" } }, ...RATE_HEADERS },
        },
      },
    },
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const refName = (ref: string) => ref.split("/").at(-1)!;

const count = (n: unknown) => Number(n).toLocaleString("en-US");

/** A schema in words: "string (at most 40 characters)", "Contact", "list (at most 50) of string", "one of a, b". */
function typeText(s: Json | undefined): string {
  if (!s || Object.keys(s).length === 0) return "any JSON value";
  if (typeof s.$ref === "string") return `<a href="#schema-${refName(s.$ref)}">${refName(s.$ref)}</a>`;
  const anyOf = s.anyOf as Json[] | undefined;
  if (anyOf) {
    if (anyOf.every((b) => b.const !== undefined)) return `one of ${anyOf.map((b) => `<code>${escape(String(b.const))}</code>`).join(", ")}`;
    return anyOf.map(typeText).join(" or ");
  }
  if (s.const !== undefined) return `<code>${escape(JSON.stringify(s.const))}</code>`;
  if (s.type === "array") {
    const size = s.minItems !== undefined && s.maxItems !== undefined ? ` (${count(s.minItems)} to ${count(s.maxItems)})` : s.maxItems !== undefined ? ` (at most ${count(s.maxItems)})` : "";
    return `list${size} of ${typeText(s.items as Json)}`;
  }
  if (s.type === "object" && s.additionalProperties) {
    return `object${s.maxProperties !== undefined ? ` (at most ${count(s.maxProperties)} names)` : ""} of names to ${typeText(s.additionalProperties as Json)}`;
  }
  const limits = [
    s.minLength !== undefined && s.maxLength !== undefined ? `${count(s.minLength)} to ${count(s.maxLength)} characters` : s.maxLength !== undefined ? `at most ${count(s.maxLength)} characters` : "",
    s.minimum !== undefined && s.maximum !== undefined ? `${count(s.minimum)} to ${count(s.maximum)}` : "",
    s.format === "date-time" ? "ISO 8601 time" : "",
  ].filter(Boolean);
  return limits.length ? `${String(s.type)} (${limits.join(", ")})` : String(s.type ?? "value");
}

/** A table whose cells carry their column's name, so a narrow screen shows each row as labelled lines. */
function table(columns: string[], rows: string[][]): string {
  const head = columns.map((c) => `<th>${c}</th>`).join("");
  const body = rows.map((cells) => `<tr>${cells.map((cell, i) => `<td data-label="${columns[i]}">${cell}</td>`).join("")}</tr>`).join("");
  return `<div class="table"><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/** The fields of an object schema as a table: name, type, whether it is required, what it means. */
function fieldTable(s: Json, requiredLabel: "required" | "always"): string {
  const props = Object.entries((s.properties ?? {}) as Record<string, Json>);
  if (!props.length) return "";
  const required = new Set((s.required ?? []) as string[]);
  const note = (p: Json) => escape(String(p.description ?? (p.anyOf as Json[] | undefined)?.find((b) => b.description)?.description ?? ""));
  return table(
    ["Field", "Type", requiredLabel === "required" ? "Required" : "Always", "Notes"],
    props.map(([name, p]) => [`<code>${escape(name)}</code>`, typeText(p), required.has(name) ? requiredLabel : "", note(p)]),
  );
}

function operationSection(method: string, path: string, op: Operation, doc: Document): string {
  const params = (op.parameters ?? []).map((p) => [`<code>${escape(p.name)}</code>`, p.in, typeText(p.schema), p.required ? "required" : "", escape(p.description ?? "")]);
  const answers = Object.entries(op.responses).map(([status, r]) => {
    const answer = (typeof (r as Json).$ref === "string" ? doc.components.responses[refName((r as Json).$ref as string)] : r) as Operation["responses"][string];
    const body = answer.content?.["application/json"].schema;
    return [`<strong>${status}</strong>`, escape(answer.description), body ? typeText(body) : ""];
  });
  const body = op.requestBody?.content["application/json"]?.schema;
  const raw = op.requestBody?.content["application/octet-stream"]?.schema.description as string | undefined;
  const description = op.description.replace(/ ?Needs the \S+ permission\.$/, "");
  return `<section class="op" id="${op.operationId}">
<h3><code>${method.toUpperCase()} ${escape(path)}</code></h3>
<p class="summary">${escape(op.summary)}</p>
${description ? `<p>${escape(description)}</p>` : ""}
<p class="scope">Permission: <code>${escape(op.security[0]!.apiKey[0]!)}</code></p>
${params.length ? `<h4>Parameters</h4>${table(["Name", "In", "Type", "Required", "Notes"], params)}` : ""}
${body ? `<h4>Request body (JSON)</h4>${fieldTable(body, "required")}` : ""}
${raw ? `<h4>Request body (the file)</h4><p>${escape(raw)}</p>` : ""}
<h4>Answers</h4>${table(["Status", "Meaning", "Body"], answers)}
</section>`;
}

/** The docs page, rendered here without scripts or outside assets (the appliance may have no Internet access). */
function docsPage(doc: Document): string {
  const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ path, method, op })));
  const groups = doc.tags.map((tag) => ({ tag, ops: ops.filter((o) => o.op.tags[0] === tag.name) }));
  const contents = groups
    .map(({ tag, ops }) => `<li><a href="#tag-${tag.name}">${escape(tag.name)}</a><ul>${ops.map((o) => `<li><a href="#${o.op.operationId}"><code>${o.method.toUpperCase()} ${escape(o.path)}</code></a></li>`).join("")}</ul></li>`)
    .join("");
  const sections = groups
    .map(({ tag, ops }) => `<section class="tag" id="tag-${tag.name}"><h2>${escape(tag.name)}</h2><p>${escape(tag.description)}</p>${ops.map((o) => operationSection(o.method, o.path, o.op, doc)).join("\n")}</section>`)
    .join("\n");
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section class="schema" id="schema-${name}"><h3>${name}</h3>${s.description ? `<p>${escape(String(s.description))}</p>` : ""}${fieldTable(s, "always")}</section>`)
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(doc.info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#1f2937}
h2{font-size:1.35rem;margin-top:2.5rem;border-bottom:1px solid #e5e7eb}h3{font-size:1.05rem;margin:1.75rem 0 .25rem}h4{font-size:.9rem;margin:1rem 0 .25rem;color:#4b5563}
code{font-size:.9em}h3 code{background:#eef2ff;padding:.1rem .4rem;border-radius:4px;word-break:break-all}
.summary{font-weight:600;margin:.25rem 0}.scope code{background:#fef3c7;padding:.05rem .35rem;border-radius:4px}
.op{border-left:3px solid #c7d2fe;padding-left:1rem}.table{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid #e5e7eb}th{background:#f9fafb}
nav ul{padding-left:1.2rem}nav li{margin:.1rem 0}
@media (max-width:40rem){.op{padding-left:.6rem}thead{display:none}table,tbody,tr,td{display:block}tr{border-bottom:1px solid #e5e7eb;padding:.3rem 0}
td{border:0;padding:.1rem 0}td:empty{display:none}td::before{content:attr(data-label) ": ";font-weight:600;color:#4b5563}}
</style>
</head><body><h1>${escape(doc.info.title)}</h1><p>${escape(doc.info.description)}</p>
<p>Every answer is JSON. Errors carry <code>message</code> (for a person) and <code>code</code> (for your program). Send an <code>Idempotency-Key</code> header with each POST so a retry never acts twice. The machine-readable document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${doc.openapi}).</p>
<nav aria-label="Endpoints"><h2>Endpoints</h2><ul>${contents}</ul></nav>
${sections}
<h2 id="schemas">Objects</h2>
${schemas}
</body></html>`;
}

export function openApiRoutes(ctx: AppContext) {
  let doc: Document | null = null;
  const document = () => (doc ??= publicApiDocument(ctx));
  return (
    new Elysia()
      // GET /api/openapi.json
      .get("/api/openapi.json", () => document())
      // GET /api/docs
      .get("/api/docs", () => new Response(docsPage(document()), { headers: { "content-type": "text/html; charset=utf-8" } }))
  );
}

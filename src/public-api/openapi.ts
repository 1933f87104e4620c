import { toOpenAPISchema } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { API_SCOPES } from "../api-keys/keys";
import { KEY_QUOTA, KEY_WINDOW_MS } from "./guard";
import { publicApiRoutes } from "./routes";

type Operation = { summary?: string; operationId?: string; parameters?: { name: string; in: string; required?: boolean }[]; requestBody?: { content: Record<string, unknown> } };
type Document = { openapi: string; info: Record<string, string>; paths: Record<string, Record<string, Operation>>; [k: string]: unknown };

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the routes' own schemas. The key guard's parse hook hides
 * the JSON body from the generator (it lists no content type for a route with a function parser), so each
 * request body is filled in from the route's body schema here.
 */
export function publicApiDocument(ctx: AppContext): Document {
  const api = publicApiRoutes(ctx);
  const { paths, components } = toOpenAPISchema(api as never, undefined, undefined, undefined, "3.1.0");
  const bodies = new Map<string, unknown>();
  for (const r of api.routes) if (r.hooks.body) bodies.set(`${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`, r.hooks.body);
  const doc = paths as Record<string, Record<string, Operation>>;
  for (const [path, ops] of Object.entries(doc)) {
    for (const [method, op] of Object.entries(ops)) {
      const schema = bodies.get(`${method} ${path}`);
      if (op.requestBody && schema) op.requestBody.content = { "application/json": { schema } };
      if (method === "post") {
        op.parameters = [...(op.parameters ?? []).filter((p) => p.name !== "idempotency-key"), { name: "Idempotency-Key", in: "header", required: false }];
      }
    }
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
    },
    servers: [{ url: ctx.config.publicUrl }],
    components: { ...components, securitySchemes: { apiKey: { type: "http", scheme: "bearer" } } },
    security: [{ apiKey: [] }],
    paths: doc,
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The docs page, rendered here without scripts or outside assets (the appliance may have no Internet access). */
function docsPage(doc: Document): string {
  const rows = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const params = (op.parameters ?? []).map((p) => `${escape(p.name)} (${p.in}${p.required ? ", required" : ""})`).join(", ");
      const body = op.requestBody ? `<pre>${escape(JSON.stringify(op.requestBody.content["application/json"] ?? {}, null, 2))}</pre>` : "";
      return `<section><h2><code>${method.toUpperCase()} ${escape(path)}</code></h2><p>${escape(op.summary ?? "")}</p>${params ? `<p>Parameters: ${params}</p>` : ""}${body}</section>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(doc.info.title!)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2937}pre{background:#f3f4f6;padding:.75rem;overflow:auto;font-size:12px}h2{font-size:1rem;margin-top:2rem}</style>
</head><body><h1>${escape(doc.info.title!)}</h1><p>${escape(doc.info.description!)}</p><p>The document: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${doc.openapi}).</p>${rows.join("\n")}</body></html>`;
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

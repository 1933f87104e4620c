// The public API's OpenAPI document as tools read it (issue 28 item 8): Redocly's recommended rules find no error,
// swagger-parser validates it, and a client generated from it with openapi-typescript + openapi-fetch is typed
// (a contact's fields are known, a wrong field does not compile).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { startTestServer, type TestServer } from "../support/test-server";

setDefaultTimeout(60_000);

const ROOT = resolve(import.meta.dir, "../..");
let t: TestServer;
let doc: any;

beforeAll(async () => {
  t = await startTestServer({ smtp: false });
  doc = (await t.api("/api/openapi.json", { origin: false })).body;
});
afterAll(async () => {
  await t?.stop();
});

describe("the OpenAPI document", () => {
  test("passes Redocly's recommended rules with no error (the one warning: the test server is on localhost)", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/api/openapi.json", config });
    expect(problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(problems.map((p) => `${p.severity} ${p.ruleId}`)).toEqual(["warn no-server-example.com"]);
  });

  test("is valid for swagger-parser, with no TypeBox keyword left in it", async () => {
    await SwaggerParser.validate(structuredClone(doc));
    // TypeBox's keywords, anywhere but as the name of a field under properties (a media item's "error" field).
    const keywords: string[] = [];
    const walk = (node: unknown, underProperties: boolean) => {
      if (!node || typeof node !== "object") return;
      for (const [k, v] of Object.entries(node)) {
        if (!underProperties && (k === "error" || k === "nullable")) keywords.push(k);
        walk(v, k === "properties" && !underProperties);
      }
    };
    walk(doc, false);
    expect(keywords).toEqual([]);
    expect(doc.components.schemas.MediaItem.properties.error).toBeDefined();
    const key = doc.paths["/api/v1/messages"].post.parameters.find((p: any) => p.name === "Idempotency-Key");
    expect(key).toMatchObject({ in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 200 } });
  });

  test("documents every operation's permission and answers, each with a body", () => {
    const ops = Object.entries(doc.paths).flatMap(([path, byMethod]: [string, any]) => Object.entries(byMethod).map(([m, op]: [string, any]) => ({ at: `${m.toUpperCase()} ${path}`, op })));
    expect(ops).toHaveLength(18);
    for (const { op } of ops) {
      expect(op.security[0].apiKey).toHaveLength(1);
      for (const answer of Object.values(op.responses) as any[]) {
        const r = answer.$ref ? doc.components.responses[answer.$ref.split("/").at(-1)] : answer;
        expect(r.content["application/json"].schema).toBeDefined();
      }
    }
    const upsert = doc.paths["/api/v1/contacts/upsert"].post;
    expect(upsert.security).toEqual([{ apiKey: ["contacts:write"] }]);
    expect(Object.keys(upsert.responses)).toEqual(["200", "201", "400", "401", "402", "403", "422", "429"]);
    expect(upsert.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Contact" });
    expect(doc.paths["/api/v1/messages/{id}"].get.security).toEqual([{ apiKey: ["messages:read"] }]);
    expect(Object.keys(doc.paths["/api/v1/messages/{id}"].get.responses)).toEqual(["200", "400", "401", "403", "404", "429"]);
  });

  test("documents attachments: mediaIds of POST /api/v1/messages and the media items of a message (issue 33)", () => {
    const send = doc.paths["/api/v1/messages"].post;
    expect(send.summary).toBe("Send one SMS, or an MMS with mediaIds, through the outbox; send an Idempotency-Key so a retry never sends twice");
    expect(send.description).toBe(
      "With mediaIds the message is an MMS, sent only from a number of Twilio, Telnyx, The simulator; Brevo, TextMagic, ClickSend numbers refuse it " +
        'with 400 before anything is queued ("Brevo cannot send pictures or files (MMS): send this from a Twilio or Telnyx number, or remove the attachments"). ' +
        'An upload that is not an MMS type is refused by POST /api/v1/media with 415 ("This file is not a JPEG, PNG or GIF image, a PDF or a vCard, the files an MMS can carry (SVG and HTML files are refused)"). ' +
        "The answer and GET /api/v1/messages/{id} list the items in media; the message events of outbound webhooks carry them with signed URLs good for 7 days. " +
        "Needs the messages:send permission.",
    );
    const mediaIds = send.requestBody.content["application/json"].schema.properties.mediaIds;
    expect(mediaIds).toEqual({
      type: "array",
      maxItems: 5,
      items: { type: "string", maxLength: 64 },
      description:
        "Pictures and files to send as one MMS, in order: ids of uploads made with POST /api/v1/media (the raw file as the body, ?filename= to name it). " +
        "Each is a JPEG, PNG or GIF image, a PDF or a vCard, within 600 KB (a larger JPEG or PNG is made smaller on upload), and is sent with one message only. " +
        "With mediaIds, content may be empty: a picture alone.",
    });
    // API keys upload (issue 33 item 6): the raw file as the body, answered with the stored item.
    const upload = doc.paths["/api/v1/media"].post;
    expect(upload.security).toEqual([{ apiKey: ["messages:send"] }]);
    expect(upload.summary).toBe("Upload a picture or file to send in an MMS (mediaIds of POST /api/v1/messages)");
    expect(upload.requestBody).toEqual({
      required: true,
      content: { "application/octet-stream": { schema: { type: "string", format: "binary", description: "The file's bytes (JPEG, PNG, GIF, PDF or vCard), at most 12 MB before it is made smaller" } } },
    });
    expect(Object.keys(upload.responses)).toEqual(["201", "400", "401", "403", "413", "415", "422", "429"]);
    expect(upload.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/UploadedMedia" });
    expect(upload.description.startsWith("Upload one picture or file to send in an MMS: the request body is the file's bytes")).toBe(true);
    expect(Object.keys(doc.components.schemas.UploadedMedia.properties)).toEqual(["id", "contentType", "filename", "size", "status", "error", "url", "resizedFrom"]);
    for (const name of ["Message", "QueuedMessage"]) {
      expect(doc.components.schemas[name].properties.media).toMatchObject({ type: "array", items: { $ref: "#/components/schemas/MediaItem" } });
    }
    expect(Object.keys(doc.components.schemas.MediaItem.properties)).toEqual(["id", "contentType", "filename", "size", "status", "error", "url"]);
  });

  test("documents the carrier registration check of POST /api/v1/campaigns/{id}/send and its acknowledgeRegistration (issue 34)", async () => {
    const send = doc.paths["/api/v1/campaigns/{id}/send"].post;
    expect(send.requestBody).toEqual({
      required: false,
      content: {
        "application/json": {
          schema: {
            type: "object",
            properties: {
              acknowledgeRegistration: {
                type: "boolean",
                description:
                  "true to send although the sender is not registered with US carriers (A2P 10DLC, or toll-free verification): without it, a draft or scheduled campaign " +
                  "whose sender carriers block for some of its recipients is refused with 409 and the warning, and nothing is sent.",
              },
            },
          },
        },
      },
    });
    expect(Object.keys(send.responses)).toEqual(["202", "400", "401", "402", "403", "404", "409", "422", "429"]);
    expect(send.responses["409"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SendRefusal" });
    expect(doc.components.schemas.SendRefusal.properties.registrationWarning).toEqual({ $ref: "#/components/schemas/RegistrationWarning" });
    expect(doc.components.schemas.SendRefusal.required).toEqual(["message", "code"]);
    expect(Object.keys(doc.components.schemas.RegistrationWarning.properties)).toEqual(["phoneNumber", "program", "state", "blockedRecipients", "message", "reason", "todo", "checkedAt"]);
    const html = await (await fetch(`${t.url}/api/docs`)).text();
    expect(html).toContain("<td data-label=\"Field\"><code>acknowledgeRegistration</code></td>");
    expect(html).toContain("refused with 409 and the warning until the call is repeated with acknowledgeRegistration: true.");
    expect(html).toContain('<a href="#schema-SendRefusal">SendRefusal</a>');
  });
});

describe("A/B tests of campaigns (issue 32 item 3)", () => {
  test("a campaign answers its abTest, and POST /api/v1/campaigns takes one (NewAbTest) with the app's limits", async () => {
    const ab = doc.components.schemas.Campaign.properties.abTest;
    expect(ab.anyOf[1]).toEqual({ type: "null" });
    expect(ab.anyOf[0].required).toEqual(["variants", "testPercent", "measure", "decideAfterHours", "winner", "decidedAt", "decidedBy"]);
    expect(ab.anyOf[0].properties.variants.items.required).toEqual(["label", "content"]);
    expect(ab.anyOf[0].properties.decidedBy.anyOf[0].anyOf.map((s: any) => s.const)).toEqual(["rule", "user"]);
    expect(doc.components.schemas.Campaign.required).toContain("abTest");
    const body = doc.paths["/api/v1/campaigns"].post.requestBody.content["application/json"].schema;
    expect(body.properties.abTest).toEqual({ $ref: "#/components/schemas/NewAbTest" });
    expect(body.required).toEqual(["name", "content"]);
    const input = doc.components.schemas.NewAbTest;
    expect(input.required).toEqual(["variants", "testPercent", "measure"]);
    expect(input.properties.variants).toMatchObject({ type: "array", minItems: 2, maxItems: 4, items: { type: "string", minLength: 1, maxLength: 1600 } });
    expect(input.properties.testPercent).toMatchObject({ type: "integer", minimum: 2, maximum: 50 });
    expect(input.properties.measure.anyOf.map((s: any) => s.const)).toEqual(["clicks", "replies"]);
    expect(input.properties.decideAfterHours.anyOf[0]).toMatchObject({ type: "integer", minimum: 1, maximum: 168 });
    const html = await (await fetch(`${t.url}/api/docs`)).text();
    expect(html).toContain('<a href="#schema-NewAbTest">NewAbTest</a>');
  });
});

describe("a client generated with openapi-typescript and openapi-fetch", () => {
  test("knows a contact's fields, and a wrong field fails type checking", async () => {
    const dir = mkdtempSync(join(ROOT, "tests/.openapi-client-"));
    try {
      writeFileSync(join(dir, "openapi.json"), JSON.stringify(doc));
      const gen = Bun.spawnSync([process.execPath, join(ROOT, "tests/support/openapi-types.ts"), join(dir, "openapi.json"), join(dir, "api.ts")], { cwd: ROOT });
      expect(gen.stderr.toString()).toBe("");
      expect(gen.exitCode).toBe(0);
      const client = `import createClient from "openapi-fetch";
import type { paths } from "./api";
const api = createClient<paths>({ baseUrl: "http://localhost", headers: { Authorization: "Bearer sk_live_x" } });
export async function upsert(): Promise<string[]> {
  const { data, error } = await api.POST("/api/v1/contacts/upsert", { body: { phone: "+14155550123", tags: ["shopify"] } });
  if (error) return [error.code, error.message];
  const status: "subscribed" | "opted_out" = data.status;
  const email: string | null = data.email;
  return [...data.tags, data.firstName, status, email ?? ""];
}
export async function page(): Promise<(string | null)[]> {
  const { data } = await api.GET("/api/v1/contacts", { params: { query: { limit: 10 } } });
  return data ? [data.nextCursor, ...data.data.map((c) => c.phone)] : [];
}
`;
      const wrong = `import createClient from "openapi-fetch";
import type { paths } from "./api";
const api = createClient<paths>({ baseUrl: "http://localhost" });
export async function wrong() {
  const { data } = await api.GET("/api/v1/contacts/{id}", { params: { path: { id: "c1" } } });
  return data?.fristName;
}
`;
      writeFileSync(join(dir, "client.ts"), client);
      writeFileSync(join(dir, "wrong.ts"), wrong);
      const compilerOptions = { strict: true, noEmit: true, target: "es2022", module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"], skipLibCheck: true, types: [] };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["client.ts", "wrong.ts"] }));
      const tsc = Bun.spawnSync(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")], { cwd: dir });
      const lines = tsc.stdout.toString().trim().split("\n");
      expect(lines).toEqual([expect.stringMatching(/^wrong\.ts\(6,16\): error TS2551: Property 'fristName' does not exist on type '\{ id: string; firstName: string; lastName: string; email: string \| null; .* Did you mean 'firstName'\?$/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { Elysia, t } from "elysia";
import type { CountryCode } from "libphonenumber-js";
import { authGuard } from "../auth/guard";
import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { pageOf, pagingQuery } from "../http/paging";
import {
  bulkTagInChunks, contactCounters, contactView, deleteContact, deleteContacts, duplicateGroups, getContact, listConsents, listContacts, mergeContacts,
  normalizeTags, optOutByOwner,
} from "./contacts";
import { getImportJob, listImportJobs, previewUpload, receiveCsvUpload, startCsvImport } from "./csv-import";
import { COLUMN_TARGET, type ColumnTarget } from "./csv-stream";
import { ContactImporter } from "./importer";
import { isKnownRegion, normalizePhone } from "./phones";
import { defaultCountryOf } from "../users/default-country";
import { contactsCsvResponse } from "./export";
import { rejectedRowsCsv } from "./import-rejects";
import { createContact, updateContact } from "./manual";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const idString = t.String({ maxLength: 64, error: "Ids are at most 64 characters" });
const idParams = t.Object({ id: idString });

const contactBody = t.Object({
  firstName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
  lastName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
  email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))),
  phone: t.Optional(t.Nullable(t.String({ maxLength: 40 }))),
  country: t.Optional(t.Nullable(t.String({ maxLength: 2 }))),
  tags: t.Optional(t.Array(t.String({ maxLength: 50 }), { maxItems: 100 })),
  // Checked by customFieldsOf: see there why not a t.Record.
  customFields: t.Optional(t.Unknown()),
});
type ContactBody = typeof contactBody.static;

const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 50;
const listQuery = t.Object({
  ...pagingQuery(MAX_PAGE_SIZE),
  q: t.Optional(t.String({ maxLength: 200 })),
  sort: t.Optional(t.Union([t.Literal("createdAt"), t.Literal("name"), t.Literal("phone")])),
  // Unset: the newest first, names from A and numbers from the lowest, as the campaign history's orders.
  order: t.Optional(t.Union([t.Literal("desc"), t.Literal("asc")])),
});

/** As many as an import can map columns to. */
const MAX_CUSTOM_FIELDS = 500;

/**
 * A body's customFields: an object of names (100 characters at most) to text (1,000 at most); absent or null,
 * undefined. The schema takes any JSON value for it, because Elysia's cleaning of a t.Record would first turn a
 * long string into an object with one key per character (seconds for a megabyte) before rejecting it.
 */
function customFieldsOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("Custom fields must be an object of name: text");
  const entries = Object.entries(value);
  if (entries.length > MAX_CUSTOM_FIELDS) throw badRequest(`A contact can have at most ${MAX_CUSTOM_FIELDS} custom fields`);
  const fields: Record<string, string> = {};
  for (const [name, text] of entries) {
    if (name.length > 100) throw badRequest("Custom field names are at most 100 characters");
    if (typeof text !== "string" || text.length > 1000) throw badRequest(`Custom field ${name} must be text of at most 1,000 characters`);
    if (name.trim()) fields[name.trim()] = text;
  }
  return fields;
}

/** Validates a create/update body in the spec's order and wording; the phone comes back in E.164. */
function cleanContact(body: ContactBody, defaultCountry: CountryCode) {
  const firstName = (body.firstName ?? "").trim();
  const lastName = (body.lastName ?? "").trim();
  const email = (body.email ?? "").trim();
  const phoneIn = (body.phone ?? "").trim();
  if (!firstName && !lastName) throw badRequest("Please enter at least a first or last name");
  if (!email && !phoneIn) throw badRequest("Please enter either a phone number or email address");
  if (email && !EMAIL.test(email)) throw badRequest("Please enter a valid email address");
  const country = body.country ? body.country.toUpperCase() : undefined;
  if (country && !isKnownRegion(country)) throw badRequest("Please choose a valid country");
  let phone: string | null = null;
  if (phoneIn) {
    phone = normalizePhone(phoneIn, (country as CountryCode | undefined) ?? defaultCountry);
    if (!phone) throw badRequest("Please enter a valid phone number");
  }
  return { firstName, lastName, email: email || null, phone, tags: body.tags ? normalizeTags(body.tags) : undefined, customFields: customFieldsOf(body.customFields) };
}

/** Options of both import calls: a tag for every row, the country of numbers without "+", what duplicates do. */
const importOptions = {
  tag: t.Optional(t.String({ maxLength: 50 })),
  country: t.Optional(t.String({ minLength: 2, maxLength: 2, error: "Please choose a valid country" })),
  onDuplicate: t.Optional(t.Union([t.Literal("skip"), t.Literal("update")], { error: "onDuplicate must be skip or update" })),
};

/** An import's country override, checked; undefined: the account's default country. */
function importCountry(country: string | undefined): CountryCode | undefined {
  if (country === undefined) return undefined;
  if (!isKnownRegion(country)) throw badRequest("Please choose a valid country");
  return country.toUpperCase() as CountryCode;
}

export function contactRoutes(ctx: AppContext) {
  // The names of contacts from before migration 0052 were keyed, and imports a previous process left running failed,
  // before the routes are built (server.ts).
  return new Elysia({ prefix: "/api/contacts" })
    .use(authGuard(ctx))
    // GET /api/contacts
    .get(
      "/",
      ({ user, query }) =>
        listContacts(ctx, user.id, {
          ...pageOf(query, DEFAULT_PAGE_SIZE),
          q: query.q,
          sort: query.sort ?? "createdAt",
          order: query.order ?? ((query.sort ?? "createdAt") === "createdAt" ? "desc" : "asc"),
        }),
      { auth: true, query: listQuery },
    )
    // GET /api/contacts/stats
    .get("/stats", ({ user }) => contactCounters(ctx, user.id), { auth: true })
    // GET /api/contacts/duplicates
    .get(
      "/duplicates",
      ({ user, query }) => {
        const { page, pageSize } = pageOf(query, DEFAULT_PAGE_SIZE);
        return duplicateGroups(ctx, user.id, page, pageSize);
      },
      { auth: true, query: t.Object(pagingQuery(MAX_PAGE_SIZE)) },
    )
    // GET /api/contacts/export.csv
    .get(
      "/export.csv",
      ({ user, query }) => contactsCsvResponse(ctx, user, query.q),
      { auth: true, query: t.Object({ q: t.Optional(t.String({ maxLength: 200 })) }) },
    )
    // POST /api/contacts
    .post(
      "/",
      async ({ user, body, set }) => {
        const { contact, notice } = await createContact(ctx, user.id, cleanContact(body, await defaultCountryOf(ctx, user)));
        set.status = 201;
        if (notice) set.headers["x-plan-notice"] = encodeURIComponent(notice);
        return contact;
      },
      { auth: true, body: contactBody },
    )
    // POST /api/contacts/import
    .post(
      "/import",
      async ({ user, body }) => {
        if (!body.contacts.some((c) => (c.phone ?? "").trim())) throw badRequest("No valid phone addresses found in the CSV file");
        const importer = await ContactImporter.open(ctx, user.id, { detailDuplicates: true, region: importCountry(body.country) ?? (await defaultCountryOf(ctx, user)), onDuplicate: body.onDuplicate });
        const tag = body.tag?.trim();
        const rows = tag ? body.contacts.map((c) => ({ ...c, tags: [tag] })) : body.contacts;
        await importer.addRows(rows);
        const r = importer.results();
        return { results: { created: r.created, updated: r.updated, duplicates: r.duplicates, invalid: r.invalid, duplicateDetails: r.duplicateDetails, errors: r.errors } };
      },
      {
        auth: true,
        body: t.Object({
          contacts: t.Array(
            t.Object({
              phone: t.Optional(t.Nullable(t.String({ maxLength: 40 }))),
              firstName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
              lastName: t.Optional(t.Nullable(t.String({ maxLength: 100 }))),
              email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))),
            }),
            { maxItems: 5000, error: "Please import at most 5,000 contacts at once; upload larger lists as a CSV file" },
          ),
          ...importOptions,
        }),
      },
    )
    // POST /api/contacts/import/preview
    .post(
      "/import/preview",
      async ({ user, request }) => ({ ...(await previewUpload(request)), defaultCountry: await defaultCountryOf(ctx, user) }),
      { auth: true, parse: "none" },
    )
    // POST /api/contacts/import/csv
    .post(
      "/import/csv",
      async ({ user, request, query, set }) => {
        const options = { mapping: query.mapping as ColumnTarget[] | undefined, tag: query.tag?.trim(), country: importCountry(query.country), onDuplicate: query.onDuplicate };
        const id = await startCsvImport(ctx, user.id, await receiveCsvUpload(ctx, request), options);
        set.status = 202;
        return { id };
      },
      {
        auth: true,
        parse: "none",
        query: t.Object({
          ...importOptions,
          mapping: t.Optional(
            t.ArrayString(t.String({ pattern: COLUMN_TARGET.source, error: "Each column maps to firstName, lastName, fullName, phone, email, tags, skip or custom:<name>" }), {
              maxItems: 500,
            }),
          ),
        }),
      },
    )
    // GET /api/contacts/import
    .get("/import", async ({ user }) => ({ data: await listImportJobs(ctx, user.id) }), { auth: true })
    // GET /api/contacts/import/:id
    .get("/import/:id", ({ user, params }) => getImportJob(ctx, user.id, params.id), { auth: true, params: idParams })
    // GET /api/contacts/import/:id/rejected.csv
    .get("/import/:id/rejected.csv", ({ user, params }) => rejectedRowsCsv(ctx, user.id, params.id), { auth: true, params: idParams })
    // POST /api/contacts/merge
    .post(
      "/merge",
      ({ user, body }) => mergeContacts(ctx, user.id, body.primaryContactId || undefined, body.mergeContactIds ?? []),
      { auth: true, body: t.Object({ primaryContactId: t.Optional(t.Nullable(idString)), mergeContactIds: t.Optional(t.Array(idString, { maxItems: 1000 })) }) },
    )
    // POST /api/contacts/bulk-delete
    .post(
      "/bulk-delete",
      async ({ user, body }) => {
        const deleted = await deleteContacts(ctx, user.id, body.contactIds);
        return { deleted, message: `${deleted} contact${deleted === 1 ? "" : "s"} deleted` };
      },
      { auth: true, body: t.Object({ contactIds: t.Array(idString, { maxItems: 10000 }) }) },
    )
    // POST /api/contacts/bulk-tag
    .post(
      "/bulk-tag",
      async ({ user, body }) => ({ updated: await bulkTagInChunks(ctx, user.id, body.contactIds, body.tags, body.action ?? "add") }),
      {
        auth: true,
        body: t.Object({
          contactIds: t.Array(idString, { maxItems: 10000 }),
          tags: t.Array(t.String({ maxLength: 50 }), { maxItems: 100 }),
          action: t.Optional(t.Union([t.Literal("add"), t.Literal("remove")])),
        }),
      },
    )
    // GET /api/contacts/:id
    .get("/:id", async ({ user, params }) => contactView(await getContact(ctx, user.id, params.id)), { auth: true, params: idParams })
    // PUT /api/contacts/:id
    .put(
      "/:id",
      async ({ user, params, body }) => updateContact(ctx, user.id, params.id, cleanContact(body, await defaultCountryOf(ctx, user))),
      { auth: true, params: idParams, body: contactBody },
    )
    // DELETE /api/contacts/:id
    .delete(
      "/:id",
      async ({ user, params }) => {
        await deleteContact(ctx, user.id, params.id);
        return { success: true, message: "Contact deleted" };
      },
      { auth: true, params: idParams },
    )
    // GET /api/contacts/:id/consent
    .get("/:id/consent", async ({ user, params }) => ({ data: await listConsents(ctx, user.id, params.id) }), { auth: true, params: idParams })
    // POST /api/contacts/:id/opt-out
    .post(
      "/:id/opt-out",
      async ({ user, params, body }) => contactView(await optOutByOwner(ctx, user.id, params.id, body?.text?.trim() || "Opted out by the account owner")),
      { auth: true, params: idParams, body: t.Optional(t.Object({ text: t.Optional(t.Nullable(t.String({ maxLength: 1000 }))) })) },
    );
}

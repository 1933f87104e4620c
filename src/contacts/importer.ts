import type { Statement } from "bun:sqlite";
import type { AppContext } from "../context";
import { HttpError } from "../http/errors";
import { usageFor } from "../licenses/limits";
import { findUserById } from "../users/queries";
import { displayName, newId } from "./contacts";
import { PhoneNormalizer, regionFromLocale } from "./phones";

export type ImportRow = { phone?: string | null; firstName?: string | null; lastName?: string | null; email?: string | null; tags?: string[] };
export type ImportError = { line: number; reason: string };
export type DuplicateDetail = { attemptedName: string; existingName: string; phone: string };

export const MAX_STORED_ERRORS = 1000;
export const MAX_DUPLICATE_DETAILS = 100;

/**
 * The import engine shared by the JSON import and the CSV jobs. Rows go in batches; every row ends in exactly
 * one counter (created + updated + duplicates + invalid = rowsRead):
 * - invalid: no phone, a phone that is not a valid number, or over the plan's contact limit (with a reason);
 * - duplicates: the same canonical phone earlier in the same import, or a stored contact with that phone
 *   where the row brings nothing new;
 * - updated: a stored contact with that phone whose empty first name, last name or email the row fills
 *   (stored values are never overwritten, and the subscription status is never touched);
 * - created: a new contact (status subscribed, source import, opt-in logged with source import).
 */
export class ContactImporter {
  rowsRead = 0;
  created = 0;
  updated = 0;
  duplicates = 0;
  invalid = 0;
  errors: ImportError[] = [];
  duplicateDetails: DuplicateDetail[] = [];
  notice: string | null = null;

  private seen = new Set<string>();
  private phones: PhoneNormalizer;
  private remaining: number;
  private limitReason: string;
  private insert: Statement;
  private index: Statement;
  private maxRowid: Statement;
  private consent: Statement;
  private fill: Statement;
  private existing: Statement;

  constructor(
    private ctx: AppContext,
    private userId: string,
    private opts: { detailDuplicates?: boolean; consentText?: string } = {},
  ) {
    const user = findUserById(ctx, userId);
    if (!user) throw new HttpError(404, "Not found");
    this.phones = new PhoneNormalizer(regionFromLocale(user.locale) ?? "US");
    const usage = usageFor(ctx, user);
    if (!usage.contacts.unlimited && !usage.license) {
      throw new HttpError(402, "No active license found. Your trial or plan has ended; redeem a license code or upgrade your plan to continue.", { kind: "contacts" });
    }
    this.remaining = usage.contacts.unlimited ? Number.POSITIVE_INFINITY : Math.max(0, usage.contacts.limit - usage.contacts.used);
    this.limitReason = `Contact limit reached: your ${usage.license?.plan.name ?? ""} plan allows ${usage.contacts.limit} contacts`.replace("  ", " ");
    const db = ctx.db.$client;
    this.insert = db.prepare(
      `INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, tags, source, status, opt_in_date, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'import', 'subscribed', ?, ?, ?) ON CONFLICT (user_id, phone) DO NOTHING`,
    );
    // The contacts_fts insert trigger skips source 'import': this importer indexes its rows (see migration 0002).
    // One statement per batch: FTS5 keeps the batch's terms in memory and writes them once.
    this.maxRowid = db.prepare(`SELECT coalesce(max(rowid), 0) AS m FROM contacts`);
    this.index = db.prepare(
      `INSERT INTO contacts_fts(rowid, body)
       SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits FROM contacts
       WHERE rowid > ? AND source = 'import'`,
    );
    this.consent = db.prepare(`INSERT INTO contact_consents (id, contact_id, user_id, kind, source, text, created_at) VALUES (?, ?, ?, 'opt_in', 'import', ?, ?)`);
    this.fill = db.prepare(
      `UPDATE contacts SET
         first_name = CASE WHEN first_name = '' THEN ?1 ELSE first_name END,
         last_name = CASE WHEN last_name = '' THEN ?2 ELSE last_name END,
         email = CASE WHEN coalesce(email, '') = '' AND ?3 <> '' THEN ?3 ELSE email END,
         updated_at = ?4
       WHERE user_id = ?5 AND phone = ?6
         AND ((first_name = '' AND ?1 <> '') OR (last_name = '' AND ?2 <> '') OR (coalesce(email, '') = '' AND ?3 <> ''))`,
    );
    this.existing = db.prepare(`SELECT first_name, last_name, email, phone FROM contacts WHERE user_id = ? AND phone = ?`);
  }

  private fail(line: number, reason: string) {
    this.invalid++;
    if (this.errors.length < MAX_STORED_ERRORS) this.errors.push({ line, reason });
  }

  private duplicate(attempted: ImportRow, phone: string) {
    this.duplicates++;
    if (!this.opts.detailDuplicates || this.duplicateDetails.length >= MAX_DUPLICATE_DETAILS) return;
    const stored = this.existing.get(this.userId, phone) as { first_name: string; last_name: string; email: string | null; phone: string } | null;
    this.duplicateDetails.push({
      attemptedName: displayName({ firstName: attempted.firstName ?? "", lastName: attempted.lastName ?? "", email: attempted.email ?? null, phone }),
      existingName: stored ? displayName({ firstName: stored.first_name, lastName: stored.last_name, email: stored.email, phone }) : phone,
      phone,
    });
  }

  /** One batch in one transaction; `lines[i]` is the line number reported for `rows[i]`. */
  addBatch(rows: ImportRow[], lines: number[]) {
    const validated: (string | null)[] = rows.map((r) => (r.phone ? this.phones.normalize(String(r.phone)) : null));
    const at = this.ctx.now();
    const consentText = this.opts.consentText ?? "Imported by the account owner";
    this.ctx.db.$client.transaction(() => {
      const before = (this.maxRowid.get() as { m: number }).m;
      const createdBefore = this.created;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        const line = lines[i]!;
        this.rowsRead++;
        const raw = row.phone ? String(row.phone).trim() : "";
        if (!raw) {
          this.fail(line, "Missing phone number");
          continue;
        }
        const phone = validated[i];
        if (!phone) {
          this.fail(line, `Invalid phone number: ${raw.slice(0, 40)}`);
          continue;
        }
        if (this.seen.has(phone)) {
          this.duplicate(row, phone);
          continue;
        }
        this.seen.add(phone);
        const first = (row.firstName ?? "").trim();
        const last = (row.lastName ?? "").trim();
        const email = (row.email ?? "").trim();
        if (this.remaining > 0) {
          const id = newId();
          const tags = JSON.stringify(row.tags ?? []);
          const res = this.insert.run(id, this.userId, first, last, email || null, phone, tags, at, at, at);
          if (res.changes === 1) {
            this.consent.run(newId(), id, this.userId, consentText, at);
            this.created++;
            this.remaining--;
            continue;
          }
        } else if (!this.existing.get(this.userId, phone)) {
          this.fail(line, this.limitReason);
          continue;
        }
        if (this.fill.run(first, last, email, at, this.userId, phone).changes === 1) this.updated++;
        else this.duplicate(row, phone);
      }
      if (this.created > createdBefore) this.index.run(before);
    })();
  }

  results() {
    return {
      rowsRead: this.rowsRead,
      created: this.created,
      updated: this.updated,
      duplicates: this.duplicates,
      invalid: this.invalid,
      duplicateDetails: this.duplicateDetails,
      errors: this.errors,
    };
  }
}

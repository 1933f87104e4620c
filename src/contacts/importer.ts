import type { Database, Statement } from "bun:sqlite";
import type { CountryCode } from "libphonenumber-js";
import type { Db } from "../../db/client";
import { ready } from "../../db/transaction";
import type { AppContext } from "../context";
import { appendEvent } from "../events/events";
import { HttpError } from "../http/errors";
import { usageFor, type Usage } from "../licenses/limits";
import { nextTurn } from "../time/next-turn";
import { findUserById } from "../users/queries";
import type { ImportDuplicate } from "../../db/schema";
import { displayName, newId } from "./contacts";
import { IntegerSet } from "./integer-set";
import { NameWriter, namedRows } from "./name-order";
import { PhoneNormalizer } from "./phones";
import { packBatch, packedRow, packedSlice, prepareBatch, type ImportRow, type PackedBatch, type StoredRow } from "./prepare";

export type ImportError = { line: number; reason: string };
export type DuplicateDetail = ImportDuplicate;
/** What a row whose phone the owner already has does: leave the stored contact as it is, or update it. */
export type OnDuplicate = "skip" | "update";
export type ImporterOptions = {
  detailDuplicates?: boolean;
  consentText?: string;
  /**
   * The country of numbers without "+": the one the user picked for the import, else the owner's (defaultCountryOf,
   * read by the caller before it constructs the importer).
   */
  region: CountryCode;
  onDuplicate?: OnDuplicate;
  /** Names the import in its events (the CSV job's id); a JSON import gets one of its own. */
  importId?: string;
  /**
   * Leaves the created contacts' rows of contact_names to the caller, which adds them sorted by name (a CSV job,
   * name-order.ts); `namesFrom` says from which rowid. Otherwise each transaction adds its own.
   */
  namesLater?: boolean;
  /**
   * Keeps the rows refused for their phone with their cells (a CSV job: contact_import_rejects, migration 0048),
   * written with each transaction's counts.
   */
  keepRejects?: boolean;
};

export const MAX_STORED_ERRORS = 1000;
/** Rows of a JSON import per transaction (see addRows). */
export const ROWS_PER_BATCH = 500;
export const MAX_DUPLICATE_DETAILS = 100;

/**
 * The import engine shared by the JSON import and the CSV jobs. Rows go in batches; every row ends in exactly
 * one counter (created + updated + duplicates + invalid = rowsRead):
 * - invalid: no phone, a phone that is not a valid number, or over the plan's contact limit (with a reason);
 * - duplicates: the same canonical phone earlier in the same import, or a stored contact with that phone, left
 *   as it is (onDuplicate "skip", the default: a row sharing a number may be another person, and the user sees
 *   both names in duplicateDetails), or one the row would not change;
 * - updated (onDuplicate "update"): a stored contact with that phone whose name, email, tags or custom fields the
 *   row changes (the row's non-empty values replace stored ones, tags are added, custom fields merged); the
 *   subscription status is never touched;
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
  /** Changes to the lists of errors and duplicates so far: a full list may change without growing (keepFirstLines). */
  listed = 0;
  /** With namesLater: the rowid of the first contact this import created (null before it created one). */
  namesFrom: number | null = null;

  /** Phones already met in this import, as numbers (E.164 has at most 15 digits: exact in a double). */
  private seen = new IntegerSet();
  private phones: PhoneNormalizer;
  private remaining: number;
  private limitReason: string;
  private insert: Statement;
  private index: Statement;
  private indexPlain: Statement;
  private indexFolded: Statement;
  private names: Statement;
  private maxRowid: Statement;
  private consents: Statement;
  private someConsents: Statement;
  private leftOut: Statement;
  private existing: Statement;
  private importId: string;
  private replace: Statement;
  private rejects: Statement;
  private nameWriter: NameWriter;

  /** An importer for the account, its plan's room read first. */
  static async open(ctx: AppContext, userId: string, opts: ImporterOptions): Promise<ContactImporter> {
    const user = await findUserById(ctx, userId);
    if (!user) throw new HttpError(404, "Not found");
    return new ContactImporter(ctx, userId, opts, await usageFor(ctx, user));
  }

  private constructor(
    private ctx: AppContext,
    private userId: string,
    private opts: ImporterOptions,
    usage: Usage,
  ) {
    this.importId = opts.importId ?? newId();
    this.phones = new PhoneNormalizer(opts.region);
    if (!usage.contacts.unlimited && !usage.license) {
      throw new HttpError(402, "No active license found. Your trial or plan has ended; redeem a license code or upgrade your plan to continue.", { kind: "contacts" });
    }
    this.remaining = usage.contacts.unlimited ? Number.POSITIVE_INFINITY : Math.max(0, usage.contacts.limit - usage.contacts.used);
    this.limitReason = `Contact limit reached: your ${usage.license?.plan.name ?? ""} plan allows ${usage.contacts.limit} contacts`.replace("  ", " ");
    const db = ctx.db.$client;
    // Rows go in as one JSON array per statement (PackedBatch rows, their ids made where the batch was prepared): a
    // batch costs one call into SQLite rather than one per row, and this thread makes no string of a row it stores.
    // A row whose phone the owner has (stored before, or earlier in the same array) is left out by the conflict.
    this.insert = db.prepare(
      `INSERT INTO contacts (id, user_id, first_name, last_name, email, phone, tags, custom_fields, source, status, opt_in_date, created_at, updated_at)
       SELECT value ->> 0, ?1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6, coalesce(nullif(value ->> 7, ''), '{}'), 'import', 'subscribed', ?2, ?2, ?2
       FROM json_each(?3) WHERE true
       ON CONFLICT (user_id, phone) DO NOTHING`,
    );
    // The rows of such an array the insert left out, by their place in it (only asked when it left out a row that was
    // new to the import: a stored contact's number).
    this.leftOut = db.prepare(`SELECT j.key AS k FROM json_each(?) AS j WHERE NOT EXISTS (SELECT 1 FROM contacts AS c WHERE c.id = j.value ->> 0)`);
    // The contacts_fts insert trigger skips source 'import': this importer indexes its rows (see migration 0002).
    // One statement per batch: FTS5 keeps the batch's terms in memory and writes them once. In the batch's own
    // transaction, not after the contacts in transactions of their own (issue 29 item 1 measured it: 100,000 diverse
    // rows through this class, 700 a transaction, the index a range of rowids at a time of about SLICE_TARGET_MS,
    // load average 19-22 on 2 cores, CPU a row on the main thread, runs alternated): with the folded letters in SQL
    // (name-key.ts searchBodySql, as the triggers write them) 31.9 and 31.2 us after against 27.8 and 26.9 in the
    // batch's transaction, the GLOB over every name costing more than larger transactions save; without them 28.2
    // and 27.7 against 29.5. Saving at most a twentieth, it would leave imported contacts unsearchable for a while
    // and a crash to index again at the next start.
    this.maxRowid = db.prepare(`SELECT coalesce(max(rowid), 0) AS m FROM contacts`);
    this.index = db.prepare(
      `INSERT INTO contacts_fts(rowid, body)
       SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits FROM contacts
       WHERE rowid > ? AND source = 'import'`,
    );
    // A name that needs letters folded for the search (its row's last value, made with the batch on the parsing
    // worker) is indexed with them after its fields, as the triggers index it (migration 0052): the others as above,
    // these by their ids (a row the insert left out has an id no contact has), in the same transaction, so the search
    // index writes no more segments.
    this.indexPlain = db.prepare(
      `INSERT INTO contacts_fts(rowid, body)
       SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits FROM contacts
       WHERE rowid > ?1 AND source = 'import' AND id NOT IN (SELECT value ->> 0 FROM json_each(?2) WHERE value ->> 8 IS NOT NULL)`,
    );
    this.indexFolded = db.prepare(
      `INSERT INTO contacts_fts(rowid, body)
       SELECT c.rowid, c.first_name || ' ' || c.last_name || ' ' || coalesce(c.email, '') || ' ' || c.phone_digits || ' ' || (j.value ->> 8)
       FROM json_each(?2) AS j CROSS JOIN contacts AS c ON c.id = j.value ->> 0
       WHERE j.value ->> 8 IS NOT NULL AND c.rowid > ?1`,
    );
    // Their rows of contact_names likewise (the insert trigger skips source 'import' too: migration 0042), with
    // their name keys made here (name-key.ts), where the triggers' SQL form would cost ten times as much.
    this.names = db.prepare(`SELECT rowid AS r, first_name AS f, last_name AS l FROM contacts WHERE rowid > ? AND source = 'import'`);
    this.nameWriter = new NameWriter(db);
    // Also one statement per array of rows: the opt-ins of all its rows when the insert took them all, else of those
    // it took (their contact ids are stored).
    const consents = `INSERT INTO contact_consents (id, contact_id, user_id, kind, source, text, created_at)
       SELECT j.value ->> 1, j.value ->> 0, ?1, 'opt_in', 'import', ?2, ?3 FROM json_each(?4) AS j`;
    this.consents = db.prepare(consents);
    this.someConsents = db.prepare(`${consents} WHERE EXISTS (SELECT 1 FROM contacts AS c WHERE c.id = j.value ->> 0)`);
    this.existing = db.prepare(`SELECT id, first_name, last_name, email, tags, custom_fields FROM contacts WHERE user_id = ? AND phone = ?`);
    this.replace = db.prepare(`UPDATE contacts SET first_name = ?, last_name = ?, email = ?, tags = ?, custom_fields = ?, updated_at = ? WHERE id = ?`);
    // One statement per transaction, fed its rows refused for their phone as a PackedBatch's refused arrays.
    this.rejects = db.prepare(
      `INSERT OR IGNORE INTO contact_import_rejects (import_id, line, reason, cells)
       SELECT ?, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE value ->> 2 IS NOT NULL`,
    );
  }

  /** The region phone numbers without a country code are read in (the import's, else the owner's default country). */
  get region(): CountryCode {
    return this.opts.region;
  }

  /** The contacts the plan has room for before this import (Infinity when it has no limit). */
  get room(): number {
    return this.remaining;
  }

  /**
   * Reports rows `start` to `end` of a batch: its invalid rows (`invalid`, refused for their phone, and `limited`,
   * over the plan's limit), the file's first MAX_STORED_ERRORS in its order, with a CSV row's cells when kept.
   */
  private fail(b: PackedBatch, start: number, end: number, invalid: number[], limited: number[]) {
    this.invalid += invalid.length + limited.length;
    for (const i of invalid) {
      const kept = keepFirstLines(this.errors, b.lines[i]!, MAX_STORED_ERRORS, () => {
        const [line, reason] = packedRow<[number, string]>(b.refused, b.refusedEnds, i);
        return { line, reason };
      });
      if (kept) this.listed++;
    }
    for (const i of limited) if (keepFirstLines(this.errors, b.lines[i]!, MAX_STORED_ERRORS, () => ({ line: b.lines[i]!, reason: this.limitReason }))) this.listed++;
    // One over the plan's limit is imported by the same file again once the plan has room: only those refused for
    // their phone are kept.
    if (this.opts.keepRejects && invalid.length) this.rejects.run(this.importId, packedSlice(b.refused, b.refusedEnds, start, end));
  }

  /** Reports a batch's duplicate rows, the file's first ones in its order, with the stored contact's name when asked. */
  private duplicate(b: PackedBatch, rows: number[]) {
    this.duplicates += rows.length;
    if (!this.opts.detailDuplicates) return;
    for (const i of rows) {
      const kept = keepFirstLines(this.duplicateDetails, b.lines[i]!, MAX_DUPLICATE_DETAILS, () => {
        const [, , firstName, lastName, email, phone] = packedRow<StoredRow>(b.rows, b.rowEnds, i);
        const stored = this.existing.get(this.userId, phone) as Stored | null;
        return {
          line: b.lines[i]!,
          attemptedName: displayName({ firstName, lastName, email: email || null, phone }),
          existingName: stored ? displayName({ firstName: stored.first_name, lastName: stored.last_name, email: stored.email, phone }) : phone,
          phone,
          existingContactId: stored?.id ?? null,
        };
      });
      if (kept) this.listed++;
    }
  }

  /**
   * Validates and stores rows (POST /api/contacts/import: up to 5,000, row i reported as line i + 1), ROWS_PER_BATCH
   * per transaction with a turn of the event loop between: 5,000 in one held the server about 250 ms.
   */
  async addRows(rows: ImportRow[]) {
    for (let i = 0; i < rows.length; i += ROWS_PER_BATCH) {
      if (i) await nextTurn();
      const part = rows.slice(i, i + ROWS_PER_BATCH);
      await this.store(packBatch(prepareBatch(part, part.map((_, k) => i + k + 1), this.phones)));
    }
  }

  /**
   * onDuplicate "update": the row's non-empty name and email replace the stored ones, its tags are added and its
   * custom fields merged in; false when that changes nothing.
   */
  private update(b: PackedBatch, i: number, at: number): boolean {
    const [, , rowFirst, rowLast, rowEmail, phone, rowTags, rowCustom] = packedRow<StoredRow>(b.rows, b.rowEnds, i);
    const s = this.existing.get(this.userId, phone) as Stored;
    const first = rowFirst || s.first_name;
    const last = rowLast || s.last_name;
    const email = rowEmail || s.email;
    const had: string[] = JSON.parse(s.tags);
    const tags = [...had, ...(JSON.parse(rowTags) as string[]).filter((t) => !had.includes(t))];
    const custom = JSON.stringify({ ...JSON.parse(s.custom_fields), ...(rowCustom ? JSON.parse(rowCustom) : {}) });
    if (first === s.first_name && last === s.last_name && email === s.email && tags.length === had.length && custom === s.custom_fields) return false;
    this.replace.run(first, last, email, JSON.stringify(tags), custom, at, s.id);
    return true;
  }

  /**
   * Stores rows `start` to `end` (exclusive) of a packed batch in one ctx.withTransaction, whose callback awaits one
   * record, the batch's event, after its rows (it commits before the caller goes on, and never joins another caller's
   * open transaction); `then` runs last in that transaction (the job's own record).
   */
  store(b: PackedBatch, start = 0, end = b.lines.length, then?: () => void): Promise<void> {
    return this.ctx.withTransaction(async () => {
      const at = this.ctx.now();
      const invalid: number[] = [];
      const duplicates: number[] = [];
      const fresh: number[] = []; // rows whose phone is new to this import, in file order
      for (let i = start; i < end; i++) {
        this.rowsRead++;
        const phone = b.phones[i]!;
        if (!phone) invalid.push(i);
        else if (this.seen.add(phone)) fresh.push(i);
        else duplicates.push(i);
      }
      const createdBefore = this.created;
      const stored: number[] = [];
      const limited: number[] = [];
      if (fresh.length <= this.remaining) {
        // The rows as they came, the import's duplicates among them (the conflict leaves them out).
        if (fresh.length) this.add(b, packedSlice(b.rows, b.rowEnds, start, end), at, fresh, fresh.length + duplicates.length, stored, () => validRows(b, start, end));
      } else {
        // Create while the plan allows: a row whose phone the owner already has does not count against it, so
        // after a part that met stored contacts the next part takes the room they left.
        let next = 0;
        while (next < fresh.length && this.remaining > 0) {
          const part = fresh.slice(next, next + this.remaining);
          next += part.length;
          const json = `[${part.map((i) => b.rows.slice(i ? b.rowEnds[i - 1]! : 0, b.rowEnds[i]! - 1)).join(",")}]`;
          this.add(b, json, at, part, part.length, stored, () => part);
        }
        for (const i of fresh.slice(next)) {
          if (this.existing.get(this.userId, packedRow<StoredRow>(b.rows, b.rowEnds, i)[5])) stored.push(i);
          else limited.push(i);
        }
      }
      const update = this.opts.onDuplicate === "update";
      for (const i of stored) {
        if (update && this.update(b, i, at)) this.updated++;
        else duplicates.push(i);
      }
      this.fail(b, start, end, invalid, limited);
      this.duplicate(b, duplicates);
      if (this.created > createdBefore) {
        // One event per transaction with its counts, not one per row (a CSV import of a million rows writes a thousand or two).
        await appendEvent(this.ctx, {
          userId: this.userId,
          type: "contact.created",
          subject: { kind: "import", id: this.importId },
          payload: { source: "import", created: this.created - createdBefore },
        });
      }
      then?.();
    });
  }

  /**
   * Inserts `json`, an array of `count` PackedBatch rows (`rows()` says which, by place) of which `fresh` are new to
   * the import, with their opt-ins, search index and names; pushes to `stored` the fresh rows whose phone the owner
   * had before the import.
   */
  private add(b: PackedBatch, json: string, at: number, fresh: number[], count: number, stored: number[], rows: () => number[]) {
    const before = (this.maxRowid.get() as { m: number }).m;
    const created = this.insert.run(this.userId, at, json).changes;
    if (created < fresh.length) {
      const all = rows();
      const left = new Set((this.leftOut.all(json) as { k: number }[]).map(({ k }) => all[k]!));
      for (const i of fresh) if (left.has(i)) stored.push(i);
    }
    this.created += created;
    this.remaining -= created;
    if (!created) return;
    const consentText = this.opts.consentText ?? "Imported by the account owner";
    (created === count ? this.consents : this.someConsents).run(this.userId, consentText, at, json);
    if (!fresh.some((i) => b.folded[i])) this.index.run(before);
    else {
      this.indexPlain.run(before, json);
      this.indexFolded.run(before, json);
    }
    if (!this.opts.namesLater) this.addNames(before);
    else this.namesFrom ??= before + 1;
  }

  /** The rows of contact_names of the contacts created after rowid `before` (in the caller's transaction). */
  private addNames(before: number) {
    const named = namedRows(this.names.all(before) as { r: number; f: string; l: string }[]);
    this.nameWriter.write(named, 0, named.ends.length, this.userId);
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

/**
 * Puts what `make` reports of a row at its line's place in `list`, which keeps the `max` first lines of the file:
 * a large import's rows come in phone order within a window (import-order.ts), not in the file's.
 */
function keepFirstLines<T extends { line: number }>(list: T[], line: number, max: number, make: () => T): boolean {
  if (list.length >= max && list[list.length - 1]!.line < line) return false;
  let at = list.length;
  while (at > 0 && list[at - 1]!.line > line) at--;
  list.splice(at, 0, make());
  if (list.length > max) list.pop();
  return true;
}

/** The valid rows of rows `start` to `end` of a packed batch, which its `rows` hold in that order. */
function validRows(b: PackedBatch, start: number, end: number): number[] {
  const rows: number[] = [];
  for (let i = start; i < end; i++) if (b.phones[i]) rows.push(i);
  return rows;
}

type Stored = { id: string; first_name: string; last_name: string; email: string | null; tags: string; custom_fields: string };

/**
 * The search index (contacts_fts, FTS5) merges its segments four at a time (its 'automerge' setting, FTS5's default):
 * every transaction that indexes contacts writes a segment, and each row's entries are written again at every level
 * its segment climbs. During a CSV import eight at a time, so the import's segments climb fewer levels; at its end
 * the import merges them down to what four would leave (mergeSearchIndex), with a turn of the event loop between
 * steps, as more segments make every search look in more of them. Not sixteen: that is FTS5's 'crisismerge', where a
 * level is merged whole within the write that fills it instead of a step at each write. The trigram index alone, a
 * million rows of issue 29's shape in transactions of 560 (scripts/bench/import.ts's data; one run each at a load of
 * 12-17, so the times are long), CPU a row with the merge down included: four at a time 17.2-18.3 us (the longest
 * transaction 1,246 ms, 489 over 100 ms), eight 14.4 (555 ms, 345; the merge down 1.0 s in steps of at most 271 ms),
 * sixteen 14.0 (2,238 ms: whole levels merged at once).
 * A setting of the index, not of the connection: a stop or crash during an import leaves it at eight until the next
 * start (restoreSearchMerges).
 */
const SEARCH_AUTOMERGE = { usual: 4, importing: 8 };
const searchMergers = new WeakMap<Database, number>();
// A row of the index's configuration, written in a transaction like any row: each caller awaits ready first.
const setAutomerge = (db: Database, n: number) => db.run("INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('automerge', ?)", [n]);

/**
 * Eight segments at a time until the returned function is called and resolves (concurrent imports: the last one out
 * restores four).
 */
export async function beginSearchImport(db: Db): Promise<() => Promise<void>> {
  await ready(db);
  const client = db.$client;
  const count = searchMergers.get(client) ?? 0;
  if (count === 0) setAutomerge(client, SEARCH_AUTOMERGE.importing);
  searchMergers.set(client, count + 1);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await ready(db);
    const left = searchMergers.get(client)! - 1;
    if (left > 0) return void searchMergers.set(client, left);
    searchMergers.delete(client);
    setAutomerge(client, SEARCH_AUTOMERGE.usual);
  };
}

/** At start (or after a restore): an import that stopped with the process left its setting; the usual one again. */
export async function restoreSearchMerges(db: Db): Promise<void> {
  await ready(db);
  const client = db.$client;
  const row = client.query<{ v: number }, []>("SELECT v FROM contacts_fts_config WHERE k = 'automerge'").get();
  if (row && row.v !== SEARCH_AUTOMERGE.usual && !searchMergers.get(client)) setAutomerge(client, SEARCH_AUTOMERGE.usual);
}

/**
 * One step of merging the search index's segments (FTS5 'merge': a level holding four or more is merged), writing
 * about `pages` pages; whether it merged anything (FTS5 counts more than one change when it did).
 */
export async function mergeSearchIndex(db: Db, pages: number): Promise<boolean> {
  await ready(db);
  const changes = db.$client.query<{ n: number }, []>("SELECT total_changes() AS n");
  const before = changes.get()!.n;
  db.$client.run("INSERT INTO contacts_fts (contacts_fts, rank) VALUES ('merge', ?)", [pages]);
  return changes.get()!.n - before >= 2;
}

const BULK = { cacheKib: 16 * 1024 };
const bulkUsers = new WeakMap<Database, { count: number; restore: string }>();

/**
 * Connection settings for bulk writes, until the returned function is called and resolves (nested and concurrent
 * imports share them; the last one out restores the previous values). Both run after ready, as every statement on the
 * connection does.
 * - temp_store MEMORY: an INSERT that fires a trigger keeps a statement journal, and in a file that is two
 *   writes of every page the statement touches;
 * - a larger page cache (16 MB, given back when the import ends), so a batch's transaction finds the index pages it
 *   dirties still in memory. Not more: a page the cache lacks is read from the system's file cache, while every
 *   page it holds is the process's own memory, and a 256 MB cache took a million-row import to 796-833 MB of RSS
 *   (issue 29 item 2 bounds it at 400 MB; scripts/bench/import.ts). 64 MB and names sorted 125,000 at a time
 *   (name-order.ts) peaked at 530 MB on a million rows of issue 29's shape, 16 MB and 60,000 at 357 MB, with the
 *   same CPU on the main thread (40.1 and 41.3 us a row; 2 s more of it in the kernel, of 14).
 * Checkpoints are not among them: a CSV import has them done off the main thread (db/checkpoints.ts).
 */
export async function beginBulkWrites(connection: Db): Promise<() => Promise<void>> {
  await ready(connection);
  const db = connection.$client;
  let state = bulkUsers.get(db);
  if (!state) {
    const bulk = { temp_store: "MEMORY", cache_size: -BULK.cacheKib };
    const set = (values: Record<string, unknown>) => Object.entries(values).map(([k, v]) => `PRAGMA ${k} = ${v};`).join(" ");
    const now = Object.fromEntries(Object.keys(bulk).map((k) => [k, Object.values(db.query(`PRAGMA ${k}`).get() as object)[0]]));
    db.exec(set(bulk));
    state = { count: 0, restore: set(now) };
    bulkUsers.set(db, state);
  }
  state.count++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await ready(connection);
    if (--state.count > 0) return;
    bulkUsers.delete(db);
    db.exec(state.restore);
  };
}

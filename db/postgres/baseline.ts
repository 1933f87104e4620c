/**
 * PostgreSQL's first migration: the whole schema the SQLite migrations up to and including this one make, in one
 * file of the same name (a PostgreSQL installation starts at this version; there is no older one to upgrade).
 * Every SQLite migration after it has a PostgreSQL file of the same name (tests/api/postgres-schema.test.ts).
 */
export const POSTGRES_BASELINE = "0064_contact_tags";

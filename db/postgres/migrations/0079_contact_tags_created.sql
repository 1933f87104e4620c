-- A tag's contacts newest first, read from contact_tags's key (issue 29 item 3): as
-- db/migrations/0079_contact_tags_created.sql, the key holding each contact's creation time before its rowid; the
-- triggers' functions (0076_contact_tags_rowid's) with the time, and the update trigger firing on a change of it.
CREATE TABLE "contact_tags_new" (
  "user_id" text NOT NULL,
  "tag" text NOT NULL,
  "created_at" bigint NOT NULL,
  "contact_rowid" bigint NOT NULL,
  PRIMARY KEY ("user_id", "tag", "created_at", "contact_rowid")
);
--> statement-breakpoint
INSERT INTO "contact_tags_new" ("user_id", "tag", "created_at", "contact_rowid")
SELECT t."user_id", t."tag", c."created_at", t."contact_rowid" FROM "contact_tags" AS t JOIN "contacts" AS c ON c."rowid" = t."contact_rowid"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
DROP TABLE "contact_tags";
--> statement-breakpoint
ALTER TABLE "contact_tags_new" RENAME TO "contact_tags";
--> statement-breakpoint
ALTER TABLE "contact_tags" RENAME CONSTRAINT "contact_tags_new_pkey" TO "contact_tags_pkey";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_tags (user_id, tag, created_at, contact_rowid)
  SELECT NEW.user_id, e #>> '{}', NEW.created_at, NEW.rowid FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND created_at = OLD.created_at AND contact_rowid = OLD.rowid
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND created_at = OLD.created_at AND contact_rowid = OLD.rowid
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  INSERT INTO contact_tags (user_id, tag, created_at, contact_rowid)
  SELECT NEW.user_id, e #>> '{}', NEW.created_at, NEW.rowid FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER contact_tags_au ON contacts;
--> statement-breakpoint
CREATE TRIGGER contact_tags_au AFTER UPDATE OF tags, user_id, created_at ON contacts FOR EACH ROW EXECUTE FUNCTION contact_tags_au();

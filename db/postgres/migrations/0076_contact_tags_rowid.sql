-- contact_tags names each contact by its rowid (issue 29 item 3): as db/migrations/0076_contact_tags_rowid.sql; its
-- triggers' functions (the baseline's, 0064_contact_tags) replaced with the rowid in place of the id.
CREATE TABLE "contact_tags_new" (
  "user_id" text NOT NULL,
  "tag" text NOT NULL,
  "contact_rowid" bigint NOT NULL,
  PRIMARY KEY ("user_id", "tag", "contact_rowid")
);
--> statement-breakpoint
INSERT INTO "contact_tags_new" ("user_id", "tag", "contact_rowid")
SELECT t."user_id", t."tag", c."rowid" FROM "contact_tags" AS t JOIN "contacts" AS c ON c."id" = t."contact_id"
ON CONFLICT DO NOTHING;
--> statement-breakpoint
DROP TABLE "contact_tags";
--> statement-breakpoint
ALTER TABLE "contact_tags_new" RENAME TO "contact_tags";
--> statement-breakpoint
ALTER TABLE "contact_tags" RENAME CONSTRAINT "contact_tags_new_pkey" TO "contact_tags_pkey";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_tags (user_id, tag, contact_rowid)
  SELECT NEW.user_id, e #>> '{}', NEW.rowid FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND contact_rowid = OLD.rowid
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_tags_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  DELETE FROM contact_tags WHERE user_id = OLD.user_id AND contact_rowid = OLD.rowid
    AND tag IN (SELECT e #>> '{}' FROM jsonb_array_elements(OLD.tags::jsonb) AS e);
  INSERT INTO contact_tags (user_id, tag, contact_rowid)
  SELECT NEW.user_id, e #>> '{}', NEW.rowid FROM jsonb_array_elements(NEW.tags::jsonb) AS e WHERE jsonb_typeof(e) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

-- The contact list's saved positions (issue 29 item 3): as db/migrations/0078_contact_list_version.sql, the totals'
-- trigger functions (the baseline's, 0064_contact_tags) counting list_version too, and the update trigger firing on
-- the list's orders as well.
ALTER TABLE "contact_totals" ADD COLUMN "list_version" bigint NOT NULL DEFAULT 0;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_totals_ai() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  INSERT INTO contact_totals (user_id, total, with_email, with_phone, list_version)
  VALUES (NEW.user_id, 1, (coalesce(NEW.email, '') <> '')::int, (coalesce(NEW.phone, '') <> '')::int, 1)
  ON CONFLICT (user_id) DO UPDATE SET total = contact_totals.total + 1,
    with_email = contact_totals.with_email + excluded.with_email, with_phone = contact_totals.with_phone + excluded.with_phone,
    list_version = contact_totals.list_version + 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_totals_ad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_totals SET total = total - 1,
    with_email = with_email - (coalesce(OLD.email, '') <> '')::int,
    with_phone = with_phone - (coalesce(OLD.phone, '') <> '')::int,
    list_version = list_version + 1
  WHERE user_id = OLD.user_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION contact_totals_au() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
  UPDATE contact_totals SET
    with_email = with_email - (coalesce(OLD.email, '') <> '')::int + (coalesce(NEW.email, '') <> '')::int,
    with_phone = with_phone - (coalesce(OLD.phone, '') <> '')::int + (coalesce(NEW.phone, '') <> '')::int,
    list_version = list_version + 1
  WHERE user_id = NEW.user_id;
  UPDATE contact_totals SET list_version = list_version + 1 WHERE user_id = OLD.user_id AND OLD.user_id <> NEW.user_id;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER contact_totals_au ON contacts;
--> statement-breakpoint
CREATE TRIGGER contact_totals_au AFTER UPDATE OF email, phone, first_name, last_name, created_at, user_id ON contacts FOR EACH ROW EXECUTE FUNCTION contact_totals_au();

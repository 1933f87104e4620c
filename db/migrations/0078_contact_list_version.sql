-- The contact list's saved positions (issue 29 item 3, src/contacts/list-marks.ts): a deep page of the list starts
-- from the key of a row a known number of rows from an end, kept while the owner's list is as it was when that row
-- was found. list_version changes whenever it may not be: the triggers of the totals (migration 0005) count every
-- insert and delete of a contact, and every change of what the list is ordered by (names, phone, creation time,
-- owner) besides the email and phone they counted; an import's names, added to contact_names after its contacts,
-- count with each transaction of them (src/contacts/name-order.ts NameWriter).
ALTER TABLE `contact_totals` ADD `list_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_totals_ai`;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ai` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO `contact_totals` (user_id, total, with_email, with_phone, list_version)
  VALUES (new.user_id, 1, coalesce(new.email, '') <> '', coalesce(new.phone, '') <> '', 1)
  ON CONFLICT (user_id) DO UPDATE SET total = total + 1, with_email = with_email + excluded.with_email, with_phone = with_phone + excluded.with_phone,
    list_version = list_version + 1;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_totals_ad`;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ad` AFTER DELETE ON `contacts` BEGIN
  UPDATE `contact_totals` SET
    total = total - 1,
    with_email = with_email - (coalesce(old.email, '') <> ''),
    with_phone = with_phone - (coalesce(old.phone, '') <> ''),
    list_version = list_version + 1
  WHERE user_id = old.user_id;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_totals_au`;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_au` AFTER UPDATE OF email, phone, first_name, last_name, created_at, user_id ON `contacts` BEGIN
  UPDATE `contact_totals` SET
    with_email = with_email - (coalesce(old.email, '') <> '') + (coalesce(new.email, '') <> ''),
    with_phone = with_phone - (coalesce(old.phone, '') <> '') + (coalesce(new.phone, '') <> ''),
    list_version = list_version + 1
  WHERE user_id = new.user_id;
  UPDATE `contact_totals` SET list_version = list_version + 1 WHERE user_id = old.user_id AND old.user_id <> new.user_id;
END;

-- Each user's contacts with an email and with a phone, kept beside the total (migration 0003) by the same
-- triggers, so the contact counters of a million contacts are read rather than counted.
ALTER TABLE `contact_totals` ADD `with_email` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `contact_totals` ADD `with_phone` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
UPDATE `contact_totals` SET
  `with_email` = (SELECT count(*) FROM `contacts` c WHERE c.user_id = `contact_totals`.user_id AND coalesce(c.email, '') <> ''),
  `with_phone` = (SELECT count(*) FROM `contacts` c WHERE c.user_id = `contact_totals`.user_id AND coalesce(c.phone, '') <> '');
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_totals_ai`;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ai` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO `contact_totals` (user_id, total, with_email, with_phone)
  VALUES (new.user_id, 1, coalesce(new.email, '') <> '', coalesce(new.phone, '') <> '')
  ON CONFLICT (user_id) DO UPDATE SET total = total + 1, with_email = with_email + excluded.with_email, with_phone = with_phone + excluded.with_phone;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_totals_ad`;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ad` AFTER DELETE ON `contacts` BEGIN
  UPDATE `contact_totals` SET
    total = total - 1,
    with_email = with_email - (coalesce(old.email, '') <> ''),
    with_phone = with_phone - (coalesce(old.phone, '') <> '')
  WHERE user_id = old.user_id;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_au` AFTER UPDATE OF email, phone ON `contacts` BEGIN
  UPDATE `contact_totals` SET
    with_email = with_email - (coalesce(old.email, '') <> '') + (coalesce(new.email, '') <> ''),
    with_phone = with_phone - (coalesce(old.phone, '') <> '') + (coalesce(new.phone, '') <> '')
  WHERE user_id = new.user_id;
END;

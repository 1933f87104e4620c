-- Each user's contact total, kept by triggers, so a page of a million contacts does not count them all.
CREATE TABLE `contact_totals` (
	`user_id` text PRIMARY KEY NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`total` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `contact_totals` (user_id, total) SELECT user_id, count(*) FROM `contacts` GROUP BY user_id;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ai` AFTER INSERT ON `contacts` BEGIN
  INSERT INTO `contact_totals` (user_id, total) VALUES (new.user_id, 1) ON CONFLICT (user_id) DO UPDATE SET total = total + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_totals_ad` AFTER DELETE ON `contacts` BEGIN
  UPDATE `contact_totals` SET total = total - 1 WHERE user_id = old.user_id;
END;
--> statement-breakpoint
-- Restated for databases that applied an earlier draft of 0002 without the WHEN clause.
DROP TRIGGER IF EXISTS `contacts_fts_ai`;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_ai` AFTER INSERT ON `contacts` WHEN new.source <> 'import' BEGIN
  INSERT INTO `contacts_fts`(rowid, body) VALUES (new.rowid, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' || new.phone_digits);
END;

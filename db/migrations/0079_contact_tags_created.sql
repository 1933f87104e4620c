-- A tag's contacts newest first, read from contact_tags's key (issue 29 item 3): the key holds each contact's creation
-- time before its rowid, so a one-tag segment's page is a range of the key with a short OFFSET (src/contacts/search.ts
-- searchPage), where it walked the index (user_id, created_at) of contacts and kept the tag's rows (the vip tag, 1%
-- of a million, page 20: 100,000 entries walked, 12 ms of CPU), or looked up each of the tag's contacts for its time
-- (3 us each). The triggers are those of migration 0076 with the time, which a delete names to find its row by key,
-- and a change of the time moves.
DROP TRIGGER `contact_tags_ai`;
--> statement-breakpoint
DROP TRIGGER `contact_tags_ad`;
--> statement-breakpoint
DROP TRIGGER `contact_tags_au`;
--> statement-breakpoint
CREATE TABLE `contact_tags_new` (
	`user_id` text NOT NULL,
	`tag` text NOT NULL,
	`created_at` integer NOT NULL,
	`contact_rowid` integer NOT NULL,
	PRIMARY KEY (`user_id`, `tag`, `created_at`, `contact_rowid`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `contact_tags_new` (`user_id`, `tag`, `created_at`, `contact_rowid`)
SELECT t.`user_id`, t.`tag`, c.`created_at`, t.`contact_rowid` FROM `contact_tags` AS t CROSS JOIN `contacts` AS c ON c.rowid = t.`contact_rowid`
ORDER BY 1, 2, 3, 4;
--> statement-breakpoint
DROP TABLE `contact_tags`;
--> statement-breakpoint
ALTER TABLE `contact_tags_new` RENAME TO `contact_tags`;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ai` AFTER INSERT ON `contacts` WHEN new.tags <> '[]' BEGIN
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `created_at`, `contact_rowid`)
  SELECT new.user_id, value, new.created_at, new.rowid FROM json_each(new.tags) WHERE type = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ad` AFTER DELETE ON `contacts` WHEN old.tags <> '[]' BEGIN
  DELETE FROM `contact_tags`
  WHERE user_id = old.user_id AND tag IN (SELECT value FROM json_each(old.tags)) AND created_at = old.created_at AND contact_rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_au` AFTER UPDATE OF tags, user_id, created_at ON `contacts` BEGIN
  DELETE FROM `contact_tags`
  WHERE user_id = old.user_id AND tag IN (SELECT value FROM json_each(old.tags)) AND created_at = old.created_at AND contact_rowid = old.rowid;
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `created_at`, `contact_rowid`)
  SELECT new.user_id, value, new.created_at, new.rowid FROM json_each(new.tags) WHERE type = 'text';
END;

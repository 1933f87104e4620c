-- contact_tags names each contact by its rowid, not its text id (issue 29 item 3): a tag's page in creation order
-- walks the index (user_id, created_at) of contacts, which holds the rowid and not the id, and keeps the rows of the
-- tag; naming contacts by id, each contact walked was looked up for its id (the vip tag, 1% of a million, page 20:
-- 100,000 lookups, 48 ms). The triggers are those of migration 0064 with the rowid in place of the id.
DROP TRIGGER `contact_tags_ai`;
--> statement-breakpoint
DROP TRIGGER `contact_tags_ad`;
--> statement-breakpoint
DROP TRIGGER `contact_tags_au`;
--> statement-breakpoint
CREATE TABLE `contact_tags_new` (
	`user_id` text NOT NULL,
	`tag` text NOT NULL,
	`contact_rowid` integer NOT NULL,
	PRIMARY KEY (`user_id`, `tag`, `contact_rowid`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `contact_tags_new` (`user_id`, `tag`, `contact_rowid`)
SELECT t.`user_id`, t.`tag`, c.rowid FROM `contact_tags` AS t CROSS JOIN `contacts` AS c ON c.`id` = t.`contact_id`
ORDER BY 1, 2, 3;
--> statement-breakpoint
DROP TABLE `contact_tags`;
--> statement-breakpoint
ALTER TABLE `contact_tags_new` RENAME TO `contact_tags`;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ai` AFTER INSERT ON `contacts` WHEN new.tags <> '[]' BEGIN
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `contact_rowid`) SELECT new.user_id, value, new.rowid FROM json_each(new.tags) WHERE type = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ad` AFTER DELETE ON `contacts` WHEN old.tags <> '[]' BEGIN
  DELETE FROM `contact_tags` WHERE user_id = old.user_id AND contact_rowid = old.rowid AND tag IN (SELECT value FROM json_each(old.tags));
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_au` AFTER UPDATE OF tags, user_id ON `contacts` BEGIN
  DELETE FROM `contact_tags` WHERE user_id = old.user_id AND contact_rowid = old.rowid AND tag IN (SELECT value FROM json_each(old.tags));
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `contact_rowid`) SELECT new.user_id, value, new.rowid FROM json_each(new.tags) WHERE type = 'text';
END;

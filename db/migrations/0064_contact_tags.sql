-- Each contact's tags as rows of their own (issue 29 item 3), so a segment on a tag reads an index rather than
-- every contact's JSON list: json_each over a million contacts' tags took 1.7 to 5 s a count. Kept by the shallow
-- triggers below on every write of contacts.tags, the CSV importer's included (its inserts fire them; most imported
-- rows have no tags, which the insert trigger skips). Only text values are kept: the app writes tags as strings.
-- Primary key (user_id, tag, contact_id): a tag's contacts in order; the account's distinct tags by a skip scan.
CREATE TABLE `contact_tags` (
	`user_id` text NOT NULL,
	`tag` text NOT NULL,
	`contact_id` text NOT NULL,
	PRIMARY KEY (`user_id`, `tag`, `contact_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `contact_id`)
SELECT c.`user_id`, j.value, c.`id` FROM `contacts` AS c, json_each(c.`tags`) AS j
WHERE c.`tags` <> '[]' AND j.type = 'text'
ORDER BY 1, 2, 3;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ai` AFTER INSERT ON `contacts` WHEN new.tags <> '[]' BEGIN
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `contact_id`) SELECT new.user_id, value, new.id FROM json_each(new.tags) WHERE type = 'text';
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_ad` AFTER DELETE ON `contacts` WHEN old.tags <> '[]' BEGIN
  DELETE FROM `contact_tags` WHERE user_id = old.user_id AND contact_id = old.id AND tag IN (SELECT value FROM json_each(old.tags));
END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_au` AFTER UPDATE OF tags, user_id ON `contacts` BEGIN
  DELETE FROM `contact_tags` WHERE user_id = old.user_id AND contact_id = old.id AND tag IN (SELECT value FROM json_each(old.tags));
  INSERT OR IGNORE INTO `contact_tags` (`user_id`, `tag`, `contact_id`) SELECT new.user_id, value, new.id FROM json_each(new.tags) WHERE type = 'text';
END;

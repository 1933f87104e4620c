-- The contacts in name order (the list sorted by name, a first-name search of one or two letters) move from an index
-- of contacts to a table of their own. With a million contacts as people have them, the name of each imported row
-- fell on its own page of that index, which every commit wrote to the log and every checkpoint again: 17 of the
-- import writer's 39 us a row (scripts/bench/import-writer.ts, NONAME=1). Kept apart, the bulk importer adds a CSV
-- import's names after its contacts, a large part at a time sorted by name (src/contacts/name-order.ts), so a
-- transaction's names fall on neighbouring pages. Every other insert, and every change of a name or owner, keeps
-- the table by the triggers below; the importer's own rows (source 'import') are left to it, as for the search index.
-- Names are ordered without regard to the case of ASCII letters (NOCASE): "adams" and "JOHN" among "Adams" and
-- "John", where the index ordered every capital before every small letter ("Zoë" before "adams"). Other letters
-- compare by their bytes ("Émile" after "Zoë"): SQLite here has no collation per language.
CREATE TABLE `contact_names` (
	`user_id` text NOT NULL,
	`first_name` text NOT NULL COLLATE NOCASE,
	`last_name` text NOT NULL COLLATE NOCASE,
	`contact_rowid` integer NOT NULL,
	PRIMARY KEY (`user_id`, `first_name`, `last_name`, `contact_rowid`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `contact_names` SELECT `user_id`, `first_name`, `last_name`, `rowid` FROM `contacts`
ORDER BY `user_id`, `first_name` COLLATE NOCASE, `last_name` COLLATE NOCASE, `rowid`;
--> statement-breakpoint
DROP INDEX IF EXISTS `contacts_user_name_idx`;
--> statement-breakpoint
-- Where a CSV import's names are still to be added: from this contact rowid on (null when none are).
ALTER TABLE `contact_imports` ADD `names_from` integer;
--> statement-breakpoint
CREATE TRIGGER `contact_names_ai` AFTER INSERT ON `contacts` WHEN new.source <> 'import' BEGIN
  INSERT OR IGNORE INTO `contact_names` VALUES (new.user_id, new.first_name, new.last_name, new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `contact_names_ad` AFTER DELETE ON `contacts` BEGIN
  DELETE FROM `contact_names` WHERE user_id = old.user_id AND first_name = old.first_name AND last_name = old.last_name AND contact_rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_names_au` AFTER UPDATE OF user_id, first_name, last_name ON `contacts` BEGIN
  DELETE FROM `contact_names` WHERE user_id = old.user_id AND first_name = old.first_name AND last_name = old.last_name AND contact_rowid = old.rowid;
  INSERT OR IGNORE INTO `contact_names` VALUES (new.user_id, new.first_name, new.last_name, new.rowid);
END;

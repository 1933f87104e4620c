-- The list in name order as people read it (issue 28 item 5): contact_names is keyed by name_key, each name folded to
-- its base letters without regard to case (src/contacts/name-key.ts: "Ángel" with "Adams", "Íñigo" with "Ivy",
-- "Łukasz" with "Lucas", "JOHN" with "john", "Straße" as "strasse"), the first name then the last, where NOCASE put
-- every letter outside ASCII after "Z". Ties (the same name written with and without its accents) follow the order
-- the contacts were stored in. The table holds the key alone, not the names it was made from.
-- The key is written in JavaScript where many are written at once (a CSV import's names, on the worker thread that
-- sorts them) and by these triggers in SQL for every other write, the same letters folded the same way: a name in
-- printable ASCII by lower(), any other a character at a time through name_folds below. The triggers stay a few
-- levels deep: sqlite3 3.40 (Debian 12) fails to parse an expression nested past ~25 levels and then calls the whole
-- database malformed (the first version folded with ~500 nested replace() calls). The contacts stored before this
-- migration get theirs at the next start, in JavaScript (keyEarlierNames in src/contacts/name-order.ts).
-- The search finds "Straße" for "strasse" and "Øystein" for "oystein" (issue 28 item 5): the trigram index folds
-- accents (migration 0039) but not the letters that are no letter with an accent (ß, æ, ø, œ, ł, đ, þ...). A contact
-- whose name holds one is indexed with its name so folded after its fields (searchExtra in name-key.ts), by the
-- triggers below, by the importer's names step, and for contacts stored before this migration at the next start
-- along with their name keys; a query is folded the same way.
DROP TRIGGER IF EXISTS `contact_names_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_names_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contact_names_au`;
--> statement-breakpoint
DROP TABLE `contact_names`;
--> statement-breakpoint
CREATE TABLE `contact_names` (
	`user_id` text NOT NULL,
	`name_key` text NOT NULL,
	`contact_rowid` integer NOT NULL,
	PRIMARY KEY (`user_id`, `name_key`, `contact_rowid`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Each letter of Latin-1 and Latin Extended-A the name key folds, with its base letter(s) in lower case (FOLDED_LETTERS
-- in name-key.ts); `search` is what the search folds it to where the search index's own folding leaves it (else null).
CREATE TABLE `name_folds` (
	`letter` text PRIMARY KEY NOT NULL,
	`base` text NOT NULL,
	`search` text
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `name_folds` VALUES
('À', 'a', NULL),
('Á', 'a', NULL),
('Â', 'a', NULL),
('Ã', 'a', NULL),
('Ä', 'a', NULL),
('Å', 'a', NULL),
('Æ', 'ae', 'ae'),
('Ç', 'c', NULL),
('È', 'e', NULL),
('É', 'e', NULL),
('Ê', 'e', NULL),
('Ë', 'e', NULL),
('Ì', 'i', NULL),
('Í', 'i', NULL),
('Î', 'i', NULL),
('Ï', 'i', NULL),
('Ð', 'd', 'd'),
('Ñ', 'n', NULL),
('Ò', 'o', NULL),
('Ó', 'o', NULL),
('Ô', 'o', NULL),
('Õ', 'o', NULL),
('Ö', 'o', NULL),
('Ø', 'o', 'o'),
('Ù', 'u', NULL),
('Ú', 'u', NULL),
('Û', 'u', NULL),
('Ü', 'u', NULL),
('Ý', 'y', NULL),
('Þ', 'th', 'th'),
('ß', 'ss', 'ss'),
('à', 'a', NULL),
('á', 'a', NULL),
('â', 'a', NULL),
('ã', 'a', NULL),
('ä', 'a', NULL),
('å', 'a', NULL),
('æ', 'ae', 'ae'),
('ç', 'c', NULL),
('è', 'e', NULL),
('é', 'e', NULL),
('ê', 'e', NULL),
('ë', 'e', NULL),
('ì', 'i', NULL),
('í', 'i', NULL),
('î', 'i', NULL),
('ï', 'i', NULL),
('ð', 'd', 'd'),
('ñ', 'n', NULL),
('ò', 'o', NULL),
('ó', 'o', NULL),
('ô', 'o', NULL),
('õ', 'o', NULL),
('ö', 'o', NULL),
('ø', 'o', 'o'),
('ù', 'u', NULL),
('ú', 'u', NULL),
('û', 'u', NULL),
('ü', 'u', NULL),
('ý', 'y', NULL),
('þ', 'th', 'th'),
('ÿ', 'y', NULL),
('Ā', 'a', NULL),
('ā', 'a', NULL),
('Ă', 'a', NULL),
('ă', 'a', NULL),
('Ą', 'a', NULL),
('ą', 'a', NULL),
('Ć', 'c', NULL),
('ć', 'c', NULL),
('Ĉ', 'c', NULL),
('ĉ', 'c', NULL),
('Ċ', 'c', NULL),
('ċ', 'c', NULL),
('Č', 'c', NULL),
('č', 'c', NULL),
('Ď', 'd', NULL),
('ď', 'd', NULL),
('Đ', 'd', 'd'),
('đ', 'd', 'd'),
('Ē', 'e', NULL),
('ē', 'e', NULL),
('Ĕ', 'e', NULL),
('ĕ', 'e', NULL),
('Ė', 'e', NULL),
('ė', 'e', NULL),
('Ę', 'e', NULL),
('ę', 'e', NULL),
('Ě', 'e', NULL),
('ě', 'e', NULL),
('Ĝ', 'g', NULL),
('ĝ', 'g', NULL),
('Ğ', 'g', NULL),
('ğ', 'g', NULL),
('Ġ', 'g', NULL),
('ġ', 'g', NULL),
('Ģ', 'g', NULL),
('ģ', 'g', NULL),
('Ĥ', 'h', NULL),
('ĥ', 'h', NULL),
('Ħ', 'h', 'h'),
('ħ', 'h', 'h'),
('Ĩ', 'i', NULL),
('ĩ', 'i', NULL),
('Ī', 'i', NULL),
('ī', 'i', NULL),
('Ĭ', 'i', NULL),
('ĭ', 'i', NULL),
('Į', 'i', NULL),
('į', 'i', NULL),
('İ', 'i', NULL),
('ı', 'i', 'i'),
('Ĳ', 'ij', 'ij'),
('ĳ', 'ij', 'ij'),
('Ĵ', 'j', NULL),
('ĵ', 'j', NULL),
('Ķ', 'k', NULL),
('ķ', 'k', NULL),
('ĸ', 'k', 'k'),
('Ĺ', 'l', NULL),
('ĺ', 'l', NULL),
('Ļ', 'l', NULL),
('ļ', 'l', NULL),
('Ľ', 'l', NULL),
('ľ', 'l', NULL),
('Ŀ', 'l', 'l'),
('ŀ', 'l', 'l'),
('Ł', 'l', 'l'),
('ł', 'l', 'l'),
('Ń', 'n', NULL),
('ń', 'n', NULL),
('Ņ', 'n', NULL),
('ņ', 'n', NULL),
('Ň', 'n', NULL),
('ň', 'n', NULL),
('ŉ', 'n', 'n'),
('Ŋ', 'n', 'n'),
('ŋ', 'n', 'n'),
('Ō', 'o', NULL),
('ō', 'o', NULL),
('Ŏ', 'o', NULL),
('ŏ', 'o', NULL),
('Ő', 'o', NULL),
('ő', 'o', NULL),
('Œ', 'oe', 'oe'),
('œ', 'oe', 'oe'),
('Ŕ', 'r', NULL),
('ŕ', 'r', NULL),
('Ŗ', 'r', NULL),
('ŗ', 'r', NULL),
('Ř', 'r', NULL),
('ř', 'r', NULL),
('Ś', 's', NULL),
('ś', 's', NULL),
('Ŝ', 's', NULL),
('ŝ', 's', NULL),
('Ş', 's', NULL),
('ş', 's', NULL),
('Š', 's', NULL),
('š', 's', NULL),
('Ţ', 't', NULL),
('ţ', 't', NULL),
('Ť', 't', NULL),
('ť', 't', NULL),
('Ŧ', 't', 't'),
('ŧ', 't', 't'),
('Ũ', 'u', NULL),
('ũ', 'u', NULL),
('Ū', 'u', NULL),
('ū', 'u', NULL),
('Ŭ', 'u', NULL),
('ŭ', 'u', NULL),
('Ů', 'u', NULL),
('ů', 'u', NULL),
('Ű', 'u', NULL),
('ű', 'u', NULL),
('Ų', 'u', NULL),
('ų', 'u', NULL),
('Ŵ', 'w', NULL),
('ŵ', 'w', NULL),
('Ŷ', 'y', NULL),
('ŷ', 'y', NULL),
('Ÿ', 'y', NULL),
('Ź', 'z', NULL),
('ź', 'z', NULL),
('Ż', 'z', NULL),
('ż', 'z', NULL),
('Ž', 'z', NULL),
('ž', 'z', NULL),
('ſ', 's', 's');
--> statement-breakpoint
-- The owners whose contacts' names are still to key, and to index folded where their names need it (by the next start).
CREATE TABLE `contact_names_pending` (
	`user_id` text PRIMARY KEY NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `contact_names_pending` SELECT DISTINCT `user_id` FROM `contacts`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contacts_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contacts_fts_au`;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_ai` AFTER INSERT ON `contacts` WHEN new.source <> 'import' BEGIN
  INSERT INTO `contacts_fts`(rowid, body) VALUES (new.rowid, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' || new.phone_digits || CASE WHEN new.first_name || ' ' || new.last_name GLOB '*[ÆÐØÞßæðøþĐđĦħıĲĳĸĿŀŁłŉŊŋŒœŦŧſ]*' THEN ' ' || (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length((new.first_name || ' ' || new.last_name))) SELECT group_concat(coalesce((SELECT search FROM name_folds WHERE letter = substr((new.first_name || ' ' || new.last_name), p.i, 1)), substr((new.first_name || ' ' || new.last_name), p.i, 1)), '') FROM p) ELSE '' END);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_au` AFTER UPDATE OF first_name, last_name, email, phone ON `contacts` BEGIN
  DELETE FROM `contacts_fts` WHERE rowid = old.rowid;
  INSERT INTO `contacts_fts`(rowid, body) VALUES (new.rowid, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' || new.phone_digits || CASE WHEN new.first_name || ' ' || new.last_name GLOB '*[ÆÐØÞßæðøþĐđĦħıĲĳĸĿŀŁłŉŊŋŒœŦŧſ]*' THEN ' ' || (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length((new.first_name || ' ' || new.last_name))) SELECT group_concat(coalesce((SELECT search FROM name_folds WHERE letter = substr((new.first_name || ' ' || new.last_name), p.i, 1)), substr((new.first_name || ' ' || new.last_name), p.i, 1)), '') FROM p) ELSE '' END);
END;
--> statement-breakpoint
CREATE TRIGGER `contact_names_ai` AFTER INSERT ON `contacts` WHEN new.source <> 'import' BEGIN
  INSERT OR IGNORE INTO `contact_names` VALUES (new.user_id, (CASE WHEN new.first_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(new.first_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(new.first_name, p.i, 1)), lower(substr(new.first_name, p.i, 1))), '') FROM p) ELSE lower(new.first_name) END) || char(1) || (CASE WHEN new.last_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(new.last_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(new.last_name, p.i, 1)), lower(substr(new.last_name, p.i, 1))), '') FROM p) ELSE lower(new.last_name) END), new.rowid);
END;
--> statement-breakpoint
CREATE TRIGGER `contact_names_ad` AFTER DELETE ON `contacts` BEGIN
  DELETE FROM `contact_names` WHERE user_id = old.user_id AND name_key = (CASE WHEN old.first_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(old.first_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(old.first_name, p.i, 1)), lower(substr(old.first_name, p.i, 1))), '') FROM p) ELSE lower(old.first_name) END) || char(1) || (CASE WHEN old.last_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(old.last_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(old.last_name, p.i, 1)), lower(substr(old.last_name, p.i, 1))), '') FROM p) ELSE lower(old.last_name) END) AND contact_rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `contact_names_au` AFTER UPDATE OF user_id, first_name, last_name ON `contacts` BEGIN
  DELETE FROM `contact_names` WHERE user_id = old.user_id AND name_key = (CASE WHEN old.first_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(old.first_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(old.first_name, p.i, 1)), lower(substr(old.first_name, p.i, 1))), '') FROM p) ELSE lower(old.first_name) END) || char(1) || (CASE WHEN old.last_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(old.last_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(old.last_name, p.i, 1)), lower(substr(old.last_name, p.i, 1))), '') FROM p) ELSE lower(old.last_name) END) AND contact_rowid = old.rowid;
  INSERT OR IGNORE INTO `contact_names` VALUES (new.user_id, (CASE WHEN new.first_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(new.first_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(new.first_name, p.i, 1)), lower(substr(new.first_name, p.i, 1))), '') FROM p) ELSE lower(new.first_name) END) || char(1) || (CASE WHEN new.last_name GLOB '*[^ -~]*' THEN (WITH RECURSIVE p(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM p WHERE i < length(new.last_name)) SELECT group_concat(coalesce((SELECT base FROM name_folds WHERE letter = substr(new.last_name, p.i, 1)), lower(substr(new.last_name, p.i, 1))), '') FROM p) ELSE lower(new.last_name) END), new.rowid);
END;

CREATE TABLE `contact_consents` (
	`id` text PRIMARY KEY NOT NULL,
	`contact_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`source` text NOT NULL,
	`text` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_consents_contact_idx` ON `contact_consents` (`contact_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`rows_read` integer DEFAULT 0 NOT NULL,
	`created` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`duplicates` integer DEFAULT 0 NOT NULL,
	`invalid` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_imports_user_idx` ON `contact_imports` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `segments` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`conditions` text DEFAULT '{}' NOT NULL,
	`contact_count` integer DEFAULT 0 NOT NULL,
	`last_updated` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `segments_user_idx` ON `segments` (`user_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `phone_digits` text GENERATED ALWAYS AS (replace(replace(replace(replace(replace(replace(coalesce(phone, ''), '+', ''), '-', ''), ' ', ''), '(', ''), ')', ''), '.', '')) VIRTUAL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `tags` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `custom_fields` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `status` text DEFAULT 'subscribed' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `source` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `opt_in_date` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `last_engaged_at` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `total_spent` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `engagement_score` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `contacts` ADD `updated_at` integer;--> statement-breakpoint
CREATE INDEX `contacts_user_digits_idx` ON `contacts` (`user_id`,`phone_digits`);--> statement-breakpoint
CREATE INDEX `contacts_user_name_idx` ON `contacts` (`user_id`,`first_name`,`last_name`);--> statement-breakpoint
-- Search: a contentless FTS5 trigram index over names, email and phone digits, keyed by the contact's rowid
-- and kept in sync by triggers (substring matches of 3+ characters without scanning contacts).
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(body, tokenize='trigram', content='', contentless_delete=1);
--> statement-breakpoint
INSERT INTO `contacts_fts`(rowid, body) SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits FROM `contacts`;
--> statement-breakpoint
-- Rows stored by the bulk importer (source 'import') are indexed by the importer itself in the same
-- transaction: FTS5 flushes its pending terms at every trigger's savepoint, which made bulk inserts 4x slower.
CREATE TRIGGER `contacts_fts_ai` AFTER INSERT ON `contacts` WHEN new.source <> 'import' BEGIN
  INSERT INTO `contacts_fts`(rowid, body) VALUES (new.rowid, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' || new.phone_digits);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_ad` AFTER DELETE ON `contacts` BEGIN
  DELETE FROM `contacts_fts` WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_au` AFTER UPDATE OF first_name, last_name, email, phone ON `contacts` BEGIN
  DELETE FROM `contacts_fts` WHERE rowid = old.rowid;
  INSERT INTO `contacts_fts`(rowid, body) VALUES (new.rowid, new.first_name || ' ' || new.last_name || ' ' || coalesce(new.email, '') || ' ' || new.phone_digits);
END;

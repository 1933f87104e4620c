-- The rows a CSV import refused for their phone number (missing or not a valid number), each with its cells as the
-- file had them, so that the user downloads them as a CSV in the file's own columns (GET
-- /api/contacts/import/:id/rejected.csv), fixes them and imports them again; the job's list of errors keeps only the
-- first 1,000. Written with the import's counts, one statement per transaction of contacts; most transactions have
-- none. The file's header row is kept with the job.
CREATE TABLE `contact_import_rejects` (
	`import_id` text NOT NULL REFERENCES `contact_imports`(`id`) ON DELETE CASCADE,
	`line` integer NOT NULL,
	`reason` text NOT NULL,
	`cells` text NOT NULL,
	PRIMARY KEY (`import_id`, `line`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `contact_imports` ADD `header` text;

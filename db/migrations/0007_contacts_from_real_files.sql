-- The country a number written without "+" is read in, chosen by the user (null: derived from the first sender
-- number, else the time zone; see src/users/default-country.ts).
ALTER TABLE `users` ADD `default_country` text;
--> statement-breakpoint
-- The first skipped duplicate rows of a CSV import, with both names, so the user can see who was left out.
ALTER TABLE `contact_imports` ADD `duplicate_details` text DEFAULT '[]' NOT NULL;

-- The business profile (issue 28 items 1-2): the name that signs every STOP/HELP/keyword reply and fills
-- {business}, the industry, and the contact the HELP reply gives (a phone, an email or a site), set in Account
-- Settings as well as the onboarding wizard. The name and industry move out of the onboarding answers (which keep
-- the customer type and goals), so there is one place each is kept. help_reply is the HELP reply as the user wrote
-- it; null sends the default, which carries the business name and the contact.
ALTER TABLE `users` ADD `business_name` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `industry` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `business_contact` text;
--> statement-breakpoint
ALTER TABLE `users` ADD `help_reply` text;
--> statement-breakpoint
UPDATE `users` SET
  `business_name` = nullif(trim(json_extract(`onboarding`, '$.businessName')), ''),
  `industry` = json_extract(`onboarding`, '$.industry'),
  `onboarding` = json_remove(`onboarding`, '$.businessName', '$.industry')
WHERE `onboarding` IS NOT NULL AND json_valid(`onboarding`);
--> statement-breakpoint
-- An email change waits here until the code sent to the new address comes back: the account's email changes only
-- then. One per user; a new request replaces it.
CREATE TABLE `email_changes` (
	`user_id` text PRIMARY KEY NOT NULL,
	`new_email` text NOT NULL,
	`code_hash` text NOT NULL,
	`sent_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);

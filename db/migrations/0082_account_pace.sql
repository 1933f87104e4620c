-- A provider account's ceiling across its numbers (Telnyx's 50/s by default, or the one set on the account), shared
-- by every process of an installation as a number's pace is (migration 0080, src/phone-numbers/pace.ts).
CREATE TABLE `account_pace` (
	`sms_provider_id` text PRIMARY KEY NOT NULL,
	`next_at` real NOT NULL,
	`granted` integer NOT NULL,
	FOREIGN KEY (`sms_provider_id`) REFERENCES `sms_providers`(`id`) ON UPDATE no action ON DELETE cascade
);

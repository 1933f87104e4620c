-- Carrier registration per sender number (issue 34 item 1): what the provider said of the number's A2P 10DLC
-- campaign or toll-free verification the last time it was asked, and when. `state` is registered, pending,
-- rejected, unregistered, not_applicable (short codes, sender names, numbers outside the US) or unknown (a provider
-- with no registration API); `reason` is the provider's own words for a rejection or what is missing; `detail`
-- names the brand and campaign; `check_error` is why the last check could not be made (the state before stays).
CREATE TABLE `number_registrations` (
	`phone_number_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`program` text NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`detail` text,
	`check_error` text,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`phone_number_id`) REFERENCES `phone_numbers`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `number_registrations_user_idx` ON `number_registrations` (`user_id`);

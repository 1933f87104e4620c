-- Purchases reported for a contact, each with its amount and time (src/contacts/engagement.ts): the segments count
-- purchases in the last 90 days from it (Frequent Buyers read a custom field nothing wrote), and each adds to the
-- contact's total spent (VIP Customers read a total nothing added to). The event log is pruned before 90 days.
CREATE TABLE `contact_purchases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`amount_cents` integer DEFAULT 0 NOT NULL,
	`purchased_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_purchases_contact_idx` ON `contact_purchases` (`contact_id`,`purchased_at`);

-- Short links on the agency's domain and the hits they get (issue 32 items 1 and 2).
CREATE TABLE `short_links` (
	`code` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`campaign_id` text REFERENCES `campaigns`(`id`) ON DELETE cascade,
	`message_id` text,
	`contact_id` text,
	`phone` text NOT NULL,
	`url` text NOT NULL,
	`target` text NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `short_links_campaign_idx` ON `short_links` (`campaign_id`);
--> statement-breakpoint
CREATE INDEX `short_links_user_idx` ON `short_links` (`user_id`);
--> statement-breakpoint
CREATE TABLE `link_clicks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text NOT NULL,
	`user_id` text NOT NULL REFERENCES `users`(`id`) ON DELETE cascade,
	`campaign_id` text,
	`contact_id` text,
	`url` text NOT NULL,
	`at` integer NOT NULL,
	`method` text NOT NULL,
	`user_agent` text,
	`address_class` text NOT NULL,
	`verdict` text NOT NULL,
	`reason` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `link_clicks_campaign_idx` ON `link_clicks` (`campaign_id`, `verdict`);
--> statement-breakpoint
CREATE INDEX `link_clicks_contact_idx` ON `link_clicks` (`contact_id`, `verdict`, `at`);
--> statement-breakpoint
CREATE INDEX `link_clicks_code_idx` ON `link_clicks` (`code`, `verdict`);
--> statement-breakpoint
CREATE INDEX `link_clicks_user_at_idx` ON `link_clicks` (`user_id`, `at`);
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `shorten_links` integer DEFAULT true NOT NULL;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `utm_source` text;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `utm_medium` text;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `utm_campaign` text;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `link_expiry_days` integer DEFAULT 90 NOT NULL;
--> statement-breakpoint
ALTER TABLE `users` ADD `link_domain` text;

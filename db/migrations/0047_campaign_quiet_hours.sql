-- Quiet hours the user controls (issue 28 item 7). A transactional campaign (a one-off text the recipient expects: an
-- order update, an appointment) is not marketing: its messages are written as one-off messages ('single'), which
-- quiet hours and the daily cap leave be. `any_hour_since` is when the user chose to send a running campaign's held
-- messages at once, accepting the compliance warning: from then on quiet hours do not hold its messages.
ALTER TABLE `campaigns` ADD `transactional` integer DEFAULT false NOT NULL;
--> statement-breakpoint
ALTER TABLE `campaigns` ADD `any_hour_since` integer;

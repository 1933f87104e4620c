-- Opt-outs in plain words (issue 34 item 3): the seq of a thread's inbound message the matcher read as a possible
-- opt-out, until the owner opts the contact out or dismisses it; the thread is listed first while it is set.
ALTER TABLE `conversations` ADD `possible_opt_out_seq` integer;
--> statement-breakpoint
-- The few flagged threads of an account are read on every list of Chat: found without a scan of all its threads.
CREATE INDEX `conversations_possible_opt_out_idx` ON `conversations` (`user_id`) WHERE possible_opt_out_seq IS NOT NULL;

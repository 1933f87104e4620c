-- One trial per account (issue 31 item 2): an account's trial is started at sign-up, or on its first plan check for
-- an account from before licenses existed; two processes could both find none and both start one. The unique index
-- makes the start one INSERT ... ON CONFLICT DO NOTHING on every engine. A second trial already made by that race is
-- dropped first (the first one kept: the earliest start, then the smallest id).
DELETE FROM `licenses` WHERE `source` = 'trial' AND EXISTS (
  SELECT 1 FROM `licenses` AS `first` WHERE `first`.`user_id` = `licenses`.`user_id` AND `first`.`source` = 'trial'
    AND (`first`.`starts_at` < `licenses`.`starts_at` OR (`first`.`starts_at` = `licenses`.`starts_at` AND `first`.`id` < `licenses`.`id`))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `licenses_one_trial_idx` ON `licenses` (`user_id`) WHERE `source` = 'trial';

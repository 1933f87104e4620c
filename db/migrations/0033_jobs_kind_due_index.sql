-- The due jobs of each kind in due order: a pass flooded with one kind (10,000 drip steps due in the same minute)
-- finds the other kinds' due jobs without walking past the flood (src/jobs/jobs.ts).
CREATE INDEX IF NOT EXISTS `jobs_kind_due_idx` ON `jobs` (`kind`,`state`,`next_attempt_at`);

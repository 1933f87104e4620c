-- Sign-in failures are counted per (email, client address) in memory now (src/auth/lockout.ts); the old
-- per-account counters locked the owner out along with the attacker and are no longer read.
ALTER TABLE `user_security` DROP COLUMN `failed_logins`;--> statement-breakpoint
ALTER TABLE `user_security` DROP COLUMN `locked_until`;

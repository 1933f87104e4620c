-- When each session was last used (shown in the sessions list on /settings/security; written at most once a minute).
ALTER TABLE `sessions` ADD `last_seen_at` integer;
--> statement-breakpoint
-- Wrong codes against one pending two-factor sign-in (kind 'login-2fa').
ALTER TABLE `auth_challenges` ADD `attempts` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Wrong second-factor codes in a row per account, across sign-ins; too many lock the code step for a while.
ALTER TABLE `user_security` ADD `failed_codes` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `user_security` ADD `codes_locked_until` integer;

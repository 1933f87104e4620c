-- Which session made each API key and webhook (src/auth/session-credentials.ts): a password change, a password
-- reset and "sign out of all other sessions" end, by default, the keys and webhooks that the sessions they end made,
-- so a stolen session's credentials do not outlive it. A webhook's URL or secret set anew counts as making it anew.
-- Keys and webhooks made before this column have none and are left alone.
ALTER TABLE `api_keys` ADD `created_by_session` text;
--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `created_by_session` text;

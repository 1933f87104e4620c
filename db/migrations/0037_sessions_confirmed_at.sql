-- Sudo mode (src/auth/reauth.ts): when the session's holder last proved who they are. Sessions opened before this
-- column have none, so their holders confirm before the next sensitive change.
ALTER TABLE `sessions` ADD `confirmed_at` integer;

-- Verification codes sent to an account in its current 24-hour window (src/auth/email-verification.ts): a resend
-- every 60 s mailed an address 1,440 codes a day; the 11th in a window now answers 429.
ALTER TABLE `email_verifications` ADD `window_started_at` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `email_verifications` ADD `sends_in_window` integer DEFAULT 0 NOT NULL;

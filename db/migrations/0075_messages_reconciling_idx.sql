-- The messages a stop left being reconciled with their provider or sent again (issue 29 item 6): each start reads
-- the people they were to (messages/reconcile.ts markInterrupted), so that a later message to one of them waits.
-- Without it the start read every message still `unknown` or `queued` through the outbox index and looked each one
-- up for its error code (10,000 unknown messages of a million: 70-80 ms in the start's turn, before the engine ran).
CREATE INDEX `messages_reconciling_idx` ON `messages` (`error_code`) WHERE error_code IN ('reconciling', 'resending');

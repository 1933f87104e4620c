-- An administrator's lines of the state rule table (issue 34 item 2): each replaces the built-in line of its state
-- (src/sending/state-rules.ts) or adds a state. A line with no hours and no cap turns a state's rule off. Deleting
-- the line brings the built-in one back.
CREATE TABLE `state_rule_overrides` (
	`state` text PRIMARY KEY NOT NULL,
	`allowed_from` text,
	`allowed_until` text,
	`cap_per_24h` integer,
	`source` text NOT NULL,
	`checked` text NOT NULL,
	`updated_at` integer NOT NULL
);

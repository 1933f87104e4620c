-- A sender number's pace, shared by every process of an installation (issue 31 item 2, src/phone-numbers/pace.ts):
-- the next free slot of its schedule, reserved per batch of the sending engine in one conditional statement.
CREATE TABLE `number_pace` (
	`phone_number_id` text PRIMARY KEY NOT NULL,
	`next_at` real NOT NULL,
	`granted` integer NOT NULL,
	FOREIGN KEY (`phone_number_id`) REFERENCES `phone_numbers`(`id`) ON UPDATE no action ON DELETE cascade
);

-- The (user_id, phone_digits) index is dropped: phones are stored in E.164, so a search by the start of a number
-- reads the (user_id, phone) index from "+" and the digits, and duplicate groups start from the phones written
-- another way (src/contacts/contacts.ts). Keeping it, a third index in random order, cost a bulk import about a
-- fifth of its time on diverse numbers (scripts/bench/import.ts).
DROP INDEX IF EXISTS `contacts_user_digits_idx`;

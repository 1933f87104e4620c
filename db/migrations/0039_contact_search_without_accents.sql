-- The contact search finds "José" for "jose" and "Müller" for "muller": the trigram index folds letters with
-- diacritics to their base letter (remove_diacritics 1), in the index and in the query alike. The index holds the
-- same text as before (migration 0002: first name, last name, email, phone digits), built again under the new
-- tokenizer. The triggers of migrations 0002 and 0003 and the importer write to it by name and are unchanged.
DROP TABLE `contacts_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(body, tokenize='trigram remove_diacritics 1', content='', contentless_delete=1);
--> statement-breakpoint
INSERT INTO `contacts_fts`(rowid, body) SELECT rowid, first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || phone_digits FROM `contacts`;

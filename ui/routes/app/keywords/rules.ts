/**
 * How keywords match, for people: the rules of the server's one matcher (src/keywords/matcher.ts), shown on the
 * keyword screen and the help page.
 */
export const KEYWORD_RULES = [
  "A message is read ignoring capitals, spaces around it, and punctuation or emoji at its end: JOIN, join, “ Join ”, “JOIN!!” and JOIN followed by an emoji are the same. Full-width and other look-alike letters count as plain ones.",
  "By default the whole message must be the keyword: “join us” does not fire JOIN. Set a keyword to “first word” and a message that begins with it as a word fires it (“join us” does, “joinus” does not).",
  "STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT and REVOKE (opt-out), START, UNSTOP and YES (opt-in), HELP and INFO (help) always win: they are handled before any keyword, so “STOP” never fires a keyword, and “stop join” is neither.",
  "Those words and common replies (Y, N, NO, OK, THANKS and the like) cannot be keywords. A keyword is one word of letters and digits, unique on each of your numbers; it listens on all your numbers or the ones you choose.",
  "With double opt-in, the keyword asks “Reply Y to confirm” first; nobody is subscribed until they reply Y (or YES) within 24 hours.",
] as const;

import { quietUntil, type Clock, type QuietHours } from "./quiet-hours";

/**
 * State laws on marketing texts that are stricter than the federal rule (the TCPA's 8 AM to 9 PM in the recipient's
 * time): the hours a state allows and how many marketing texts it allows to one person in 24 hours. One line per
 * state, each with its legal source and the date it was checked. This is the built-in table; an administrator's
 * lines (src/state-rules/overrides.ts, stored in the database) replace a state's line or add one. /help shows the
 * table in force (GET /api/state-rules), and the sending engine holds a marketing text that a line forbids.
 *
 * The laws count calls "on the same subject matter or issue"; the appliance cannot tell subjects apart, so every
 * marketing (campaign) text counts. Only lines whose source could be read are listed.
 */
export type StateRule = {
  /** Two-letter USPS code. */
  state: string;
  /** The state's name as a held message says it ("Florida law allows ..."). */
  name: string;
  /** The hours the law allows marketing texts, on the recipient's clock ("08:00" to "20:00"); null: no hours rule. */
  window: { from: Clock; until: Clock } | null;
  /** At most this many marketing texts to one person in any 24 hours; null: no cap. */
  capPer24h: number | null;
  /** The legal source, as a citation. */
  source: string;
  /** When the line was last checked against its source (YYYY-MM-DD). */
  checked: string;
};

export const BUILT_IN_STATE_RULES: readonly StateRule[] = [
  // SB 1120 (2021) amended s. 501.616(6): no call before 8 a.m. or after 8 p.m. at the called person's location, and
  // at most three calls in 24 hours on the same subject; the FTSA (s. 501.059, amended 2023) counts texts as calls.
  {
    state: "FL",
    name: "Florida",
    window: { from: "08:00", until: "20:00" },
    capPer24h: 3,
    source: "Fla. Stat. § 501.616(6)",
    checked: "2026-12-07",
  },
  // Telephone Solicitation Act of 2022 (HB 3168, in force 1 November 2022): 8 a.m. to 8 p.m., three per 24 hours.
  {
    state: "OK",
    name: "Oklahoma",
    window: { from: "08:00", until: "20:00" },
    capPer24h: 3,
    source: "Okla. Stat. tit. 15, § 775C (Telephone Solicitation Act of 2022)",
    checked: "2026-12-07",
  },
  // Stop the Spam Calls Act of 2023 (SB 90, in force 1 January 2024): 8 a.m. to 8 p.m., three calls or texts per 24 hours.
  {
    state: "MD",
    name: "Maryland",
    window: { from: "08:00", until: "20:00" },
    capPer24h: 3,
    source: "Md. Code, Com. Law § 14-4502 (Stop the Spam Calls Act of 2023)",
    checked: "2026-12-07",
  },
];

/** USPS codes and names of the states, the District of Columbia and the territories with area codes of their own. */
export const US_STATES: Record<string, string> = {
  AL: "Alabama",
  AK: "Alaska",
  AZ: "Arizona",
  AR: "Arkansas",
  CA: "California",
  CO: "Colorado",
  CT: "Connecticut",
  DE: "Delaware",
  DC: "District of Columbia",
  FL: "Florida",
  GA: "Georgia",
  HI: "Hawaii",
  ID: "Idaho",
  IL: "Illinois",
  IN: "Indiana",
  IA: "Iowa",
  KS: "Kansas",
  KY: "Kentucky",
  LA: "Louisiana",
  ME: "Maine",
  MD: "Maryland",
  MA: "Massachusetts",
  MI: "Michigan",
  MN: "Minnesota",
  MS: "Mississippi",
  MO: "Missouri",
  MT: "Montana",
  NE: "Nebraska",
  NV: "Nevada",
  NH: "New Hampshire",
  NJ: "New Jersey",
  NM: "New Mexico",
  NY: "New York",
  NC: "North Carolina",
  ND: "North Dakota",
  OH: "Ohio",
  OK: "Oklahoma",
  OR: "Oregon",
  PA: "Pennsylvania",
  RI: "Rhode Island",
  SC: "South Carolina",
  SD: "South Dakota",
  TN: "Tennessee",
  TX: "Texas",
  UT: "Utah",
  VT: "Vermont",
  VA: "Virginia",
  WA: "Washington",
  WV: "West Virginia",
  WI: "Wisconsin",
  WY: "Wyoming",
  PR: "Puerto Rico",
  VI: "U.S. Virgin Islands",
  GU: "Guam",
  MP: "Northern Mariana Islands",
  AS: "American Samoa",
};

/**
 * Geographic US area codes by state, overlays included (the same codes as recipient-zone's US zones; a test holds
 * the two lists together). A number keeps its area code when its owner moves: the contact's own `state` field, when
 * the account fills it in, wins over this.
 */
export const US_AREA_CODES = `
AL: 205 251 256 334 659 938
AK: 907
AZ: 480 520 602 623 928
AR: 327 479 501 870
CA: 209 213 279 310 323 341 350 357 369 408 415 424 442 510 530 559 562 619 626 628 650 657 661 669 707 714 738 747
  760 805 818 820 831 840 858 909 916 925 949 951
CO: 303 719 720 748 970 983
CT: 203 475 860 959
DE: 302
DC: 202 771
FL: 239 305 321 324 352 386 407 448 561 645 656 689 727 728 754 772 786 813 850 863 904 941 954
GA: 229 404 470 478 678 706 762 770 912 943
HI: 808
ID: 208 986
IL: 217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 861 872
IN: 219 260 317 463 574 765 812 930
IA: 319 515 563 641 712
KS: 316 620 785 913
KY: 270 364 502 606 859
LA: 225 318 337 457 504 985
ME: 207
MD: 227 240 301 410 443 667
MA: 339 351 413 508 617 774 781 857 978
MI: 231 248 269 313 517 586 616 679 734 810 906 947 989
MN: 218 320 507 612 651 763 952
MS: 228 601 662 769
MO: 235 314 417 557 573 636 660 816 975
MT: 406
NE: 308 402 531
NV: 702 725 775
NH: 603
NJ: 201 551 609 640 732 848 856 862 908 973
NM: 505 575
NY: 212 315 329 332 347 363 516 518 585 607 624 631 646 680 716 718 838 845 914 917 929 934
NC: 252 336 472 704 743 828 910 919 980 984
ND: 701
OH: 216 220 234 283 326 330 380 419 436 440 513 567 614 740 937
OK: 405 539 572 580 918
OR: 458 503 541 971
PA: 215 223 267 272 412 445 484 570 582 610 717 724 814 835 878
RI: 401
SC: 803 821 839 843 854 864
SD: 605
TN: 423 615 629 731 865 901 931
TX: 210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 915 936 940 945 956 972 979
UT: 385 435 801
VT: 802
VA: 276 434 540 571 686 703 757 804 826 948
WA: 206 253 360 425 509 564
WV: 304 681
WI: 262 274 353 414 534 608 715 920
WY: 307
PR: 787 939
VI: 340
GU: 671
MP: 670
AS: 684
`;

const STATE_BY_CODE = new Map<string, string>();
{
  let state = "";
  for (const token of US_AREA_CODES.split(/\s+/)) {
    if (token.endsWith(":")) state = token.slice(0, -1);
    else if (token) STATE_BY_CODE.set(token, state);
  }
}

/** The US state of a +1 number by its area code; null for a number outside the US (Canada, the Caribbean) or unknown. */
export function stateOfNumber(e164: string): string | null {
  if (e164.length !== 12 || !e164.startsWith("+1")) return null;
  return STATE_BY_CODE.get(e164.slice(2, 5)) ?? null;
}

/**
 * The state a contact's own field names ("FL", "fl" or "Florida"), or null when it names none: the account's word on
 * where a known contact lives, which wins over the area code.
 */
export function stateFromField(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const v = value.trim();
  if (!v) return null;
  const code = v.toUpperCase();
  if (code in US_STATES) return code;
  const lower = v.toLowerCase();
  for (const [c, name] of Object.entries(US_STATES)) if (name.toLowerCase() === lower) return c;
  return null;
}

/** The table in force: the built-in lines, each replaced by the administrator's line for its state, plus new states. */
export function mergeStateRules(overrides: readonly StateRule[]): StateRule[] {
  const byState = new Map(BUILT_IN_STATE_RULES.map((r) => [r.state, r]));
  for (const o of overrides) byState.set(o.state, o);
  return [...byState.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** "20:00" → "8 PM", "08:30" → "8:30 AM": how a held message writes a time, the same for every reader. */
export function clock12(clock: string): string {
  const [h = 0, m = 0] = clock.split(":").map(Number);
  const hour = h % 12 === 0 ? 12 : h % 12;
  return `${hour}${m ? `:${String(m).padStart(2, "0")}` : ""} ${h < 12 ? "AM" : "PM"}`;
}

/** "Held: Florida law allows texts 8 AM–8 PM (Fla. Stat. § 501.616(6))" */
export const windowReason = (r: StateRule & { window: NonNullable<StateRule["window"]> }) =>
  `Held: ${r.name} law allows texts ${clock12(r.window.from)}–${clock12(r.window.until)} (${r.source})`;

/** "Held: Florida law allows 3 texts per 24 hours (Fla. Stat. § 501.616(6))" */
export const capReason = (r: StateRule) =>
  `Held: ${r.name} law allows ${r.capPer24h} text${r.capPer24h === 1 ? "" : "s"} per 24 hours (${r.source})`;

/** "Held: your quiet hours allow texts 8 AM–9 PM (Sending settings)" */
export const accountReason = (q: QuietHours) =>
  `Held: your quiet hours allow texts ${clock12(q.end)}–${clock12(q.start)} (Sending settings)`;

export type Hold = { until: number; reason: string };

const DAY_MS = 24 * 3600_000;

/**
 * Whether a marketing text to a recipient on `zone`'s clock may go at `now`, under the stricter of the account's quiet
 * hours (null: they do not apply) and the state's rule (null: none): the instant it may go and the rule that holds
 * it, or null. `sentAt` are the instants the account's marketing texts to this person went in the last 24 hours.
 * When several rules hold it, the one that lets it go last is named (the state's, on a tie: it is the law).
 */
export function holdFor(
  now: number,
  zone: string,
  account: QuietHours | null,
  rule: StateRule | null,
  sentAt: readonly number[],
): Hold | null {
  const holds: Hold[] = [];
  if (rule?.window) {
    const until = quietUntil(now, zone, { enabled: true, start: rule.window.until, end: rule.window.from });
    if (until !== null) holds.push({ until, reason: windowReason(rule as Parameters<typeof windowReason>[0]) });
  }
  if (rule?.capPer24h) {
    const recent = sentAt.filter((t) => t > now - DAY_MS).sort((a, b) => a - b);
    // The cap-th newest text must leave the 24 hours first.
    if (recent.length >= rule.capPer24h)
      holds.push({ until: recent[recent.length - rule.capPer24h]! + DAY_MS, reason: capReason(rule) });
  }
  if (account?.enabled) {
    const until = quietUntil(now, zone, account);
    if (until !== null) holds.push({ until, reason: accountReason(account) });
  }
  if (!holds.length) return null;
  return holds.reduce((a, b) => (b.until > a.until ? b : a));
}

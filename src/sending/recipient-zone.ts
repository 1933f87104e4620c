import { Metadata, PhoneNumber } from "libphonenumber-js/core";
import metadata from "libphonenumber-js/min/metadata";

/**
 * Where a recipient's clock is, from the number alone: North American numbers by area code, every other
 * number by its country, refined by area code in the few multi-zone countries where the area code is a clear
 * and cheap signal. Pure and table driven: a lookup is a few Map accesses, plus libphonenumber's number-type
 * patterns for the calling codes several countries share (+7, +44, +61 ...).
 */

/**
 * Geographic NANP area codes by IANA zone. Overlays are listed with the code they overlay; toll-free, premium,
 * personal and other non-geographic codes are absent on purpose, so they have no zone.
 * Codes that straddle zones take the zone most of their population lives in: 219 (NW Indiana), 270/364 (western
 * Kentucky) and 850/448 (Florida panhandle) Central; 906 (Michigan UP), 812/930 (southern Indiana), 574 and 807
 * (NW Ontario) Eastern; 208/986 (Idaho) Mountain; 458/541 (Oregon) Pacific; 308, 605, 620, 701, 785 Central;
 * 250 (BC) Pacific; 709 (Labrador) Newfoundland; 867 (three territories) Yukon.
 */
export const NANP_ZONE_CODES = `
America/New_York: 201 202 203 207 212 215 216 220 223 227 229 231 234 239 240 248 252 260 267 269 272 276 283 301
  302 304 305 313 315 317 321 324 326 329 330 332 336 339 347 351 352 363 380 386 401 404 407 410 412 413 419 423
  434 436 440 443 445 463 470 472 475 478 484 502 508 513 516 517 518 540 551 561 567 570 571 574 582 585 586 603
  606 607 609 610 614 616 617 624 631 640 645 646 656 667 678 679 680 681 686 689 703 704 706 716 717 718 724 727
  728 732 734 740 743 754 757 762 765 770 771 772 774 781 786 802 803 804 810 812 813 814 821 826 828 835 838 839
  843 845 848 854 856 857 859 860 862 863 864 865 878 904 906 908 910 912 914 917 919 929 930 934 937 941 943 947
  948 954 959 973 978 980 984 989
America/Chicago: 205 210 214 217 218 219 224 225 228 235 251 254 256 262 270 274 281 308 309 312 314 316 318 319
  320 325 327 331 334 337 346 353 361 364 402 405 409 414 417 430 432 447 448 457 464 469 479 501 504 507 512 515
  531 534 539 557 563 572 573 580 601 605 608 612 615 618 620 629 630 636 641 651 659 660 662 682 701 708 712 713
  715 726 730 731 737 763 769 773 779 785 806 815 816 817 830 832 847 850 861 870 872 901 903 913 918 920 931 936
  938 940 945 952 956 972 975 979 985
America/Denver: 303 307 385 406 435 505 575 719 720 748 801 915 970 983
America/Boise: 208 986
America/Phoenix: 480 520 602 623 928
America/Los_Angeles: 206 209 213 253 279 310 323 341 350 357 360 369 408 415 424 425 442 458 503 509 510 530 541
  559 562 564 619 626 628 650 657 661 669 702 707 714 725 738 747 760 775 805 818 820 831 840 858 909 916 925 949
  951 971
America/Anchorage: 907
Pacific/Honolulu: 808
America/Puerto_Rico: 787 939
America/St_Thomas: 340
Pacific/Guam: 671
Pacific/Saipan: 670
Pacific/Pago_Pago: 684
America/Toronto: 226 249 263 289 343 354 365 367 382 416 418 437 438 450 468 514 519 548 579 581 613 647 683 705
  742 753 807 819 873 905 942
America/Halifax: 428 506 782 902
America/St_Johns: 709 879
America/Winnipeg: 204 431 584
America/Regina: 306 474 639
America/Edmonton: 368 403 587 780 825
America/Vancouver: 236 250 257 604 672 778
America/Whitehorse: 867
America/Nassau: 242
America/Barbados: 246
America/Anguilla: 264
America/Antigua: 268
America/Tortola: 284
America/Cayman: 345
Atlantic/Bermuda: 441
America/Grenada: 473
America/Grand_Turk: 649
America/Jamaica: 658 876
America/Montserrat: 664
America/Lower_Princes: 721
America/St_Lucia: 758
America/Dominica: 767
America/St_Vincent: 784
America/Santo_Domingo: 809 829 849
America/Port_of_Spain: 868
America/St_Kitts: 869
`;

/**
 * Every country libphonenumber knows but the United States and Canada (their area codes decide), as
 * `Region/ CC City ...`: the zone is the region's prefix plus the city. Countries spanning several zones take
 * the capital's or the most populous region's (RU Moscow, KZ Almaty, ID Jakarta, CD Kinshasa, CL Santiago,
 * EC and GL and KI and PF and FM and MN their capitals, PS the West Bank) unless a prefix rule below refines it.
 */
export const COUNTRY_ZONE_TABLE = `
Africa/ AO Luanda BF Ouagadougou BI Bujumbura BJ Porto-Novo BW Gaborone CD Kinshasa CF Bangui CG Brazzaville
  CI Abidjan CM Douala DJ Djibouti DZ Algiers EG Cairo EH El_Aaiun ER Asmara ET Addis_Ababa GA Libreville GH Accra
  GM Banjul GN Conakry GQ Malabo GW Bissau KE Nairobi LR Monrovia LS Maseru LY Tripoli MA Casablanca ML Bamako
  MR Nouakchott MW Blantyre MZ Maputo NA Windhoek NE Niamey NG Lagos RW Kigali SD Khartoum SL Freetown SN Dakar
  SO Mogadishu SS Juba ST Sao_Tome SZ Mbabane TD Ndjamena TG Lome TN Tunis TZ Dar_es_Salaam UG Kampala
  ZA Johannesburg ZM Lusaka ZW Harare
America/ AG Antigua AI Anguilla AR Argentina/Buenos_Aires AW Aruba BB Barbados BL St_Barthelemy BO La_Paz
  BQ Kralendijk BR Sao_Paulo BS Nassau BZ Belize CL Santiago CO Bogota CR Costa_Rica CU Havana CW Curacao
  DM Dominica DO Santo_Domingo EC Guayaquil GD Grenada GF Cayenne GL Nuuk GP Guadeloupe GT Guatemala GY Guyana
  HN Tegucigalpa HT Port-au-Prince JM Jamaica KN St_Kitts KY Cayman LC St_Lucia MF Marigot MQ Martinique
  MS Montserrat MX Mexico_City NI Managua PA Panama PE Lima PM Miquelon PR Puerto_Rico PY Asuncion SR Paramaribo
  SV El_Salvador SX Lower_Princes TC Grand_Turk TT Port_of_Spain UY Montevideo VC St_Vincent VE Caracas
  VG Tortola VI St_Thomas
Arctic/ SJ Longyearbyen
Asia/ AE Dubai AF Kabul AM Yerevan AZ Baku BD Dhaka BH Bahrain BN Brunei BT Thimphu CN Shanghai CY Nicosia
  GE Tbilisi HK Hong_Kong ID Jakarta IL Jerusalem IN Kolkata IQ Baghdad IR Tehran JO Amman JP Tokyo KG Bishkek
  KH Phnom_Penh KP Pyongyang KR Seoul KW Kuwait KZ Almaty LA Vientiane LB Beirut LK Colombo MM Yangon
  MN Ulaanbaatar MO Macau MY Kuala_Lumpur NP Kathmandu OM Muscat PH Manila PK Karachi PS Hebron QA Qatar
  SA Riyadh SG Singapore SY Damascus TH Bangkok TJ Dushanbe TL Dili TM Ashgabat TW Taipei UZ Tashkent
  VN Ho_Chi_Minh YE Aden
Atlantic/ AC St_Helena BM Bermuda CV Cape_Verde FK Stanley FO Faroe IS Reykjavik SH St_Helena TA St_Helena
Australia/ AU Sydney
Europe/ AD Andorra AL Tirane AT Vienna AX Mariehamn BA Sarajevo BE Brussels BG Sofia BY Minsk CH Zurich CZ Prague
  DE Berlin DK Copenhagen EE Tallinn ES Madrid FI Helsinki FR Paris GB London GG Guernsey GI Gibraltar GR Athens
  HR Zagreb HU Budapest IE Dublin IM Isle_of_Man IT Rome JE Jersey LI Vaduz LT Vilnius LU Luxembourg LV Riga
  MC Monaco MD Chisinau ME Podgorica MK Skopje MT Malta NL Amsterdam NO Oslo PL Warsaw PT Lisbon RO Bucharest
  RS Belgrade RU Moscow SE Stockholm SI Ljubljana SK Bratislava SM San_Marino TR Istanbul UA Kyiv VA Vatican
  XK Belgrade
Indian/ CC Cocos CX Christmas IO Chagos KM Comoro MG Antananarivo MU Mauritius MV Maldives RE Reunion SC Mahe
  YT Mayotte
Pacific/ AS Pago_Pago CK Rarotonga FJ Fiji FM Pohnpei GU Guam KI Tarawa MH Majuro MP Saipan NC Noumea NF Norfolk
  NR Nauru NU Niue NZ Auckland PF Tahiti PG Port_Moresby PW Palau SB Guadalcanal TK Fakaofo TO Tongatapu
  TV Funafuti VU Efate WF Wallis WS Apia
`;

/**
 * Area codes that move a number off its country's zone, as `Zone: prefixes` of the national number (longest
 * prefix wins). Only where the area code survives on mobiles (Brazil's DDD, Mexico's area codes) or marks a
 * clear region (Australia's 2/3/7/8, Spain's Canaries, Portugal's Azores, Gaza's 8).
 */
export const PREFIX_ZONE_TABLES: Record<string, string> = {
  AU: `Australia/Sydney: 2  Australia/Melbourne: 3  Australia/Hobart: 36  Australia/Brisbane: 7  Australia/Adelaide: 8
    Australia/Perth: 86 89  Australia/Darwin: 879 889`,
  BR: `America/Araguaina: 63  America/Cuiaba: 65 66  America/Campo_Grande: 67  America/Rio_Branco: 68
    America/Porto_Velho: 69  America/Bahia: 71 73 74 75 77  America/Maceio: 79 82  America/Recife: 81 83 87
    America/Fortaleza: 84 85 86 88 89 98 99  America/Belem: 91 94 96  America/Santarem: 93  America/Manaus: 92 97
    America/Boa_Vista: 95`,
  ES: `Atlantic/Canary: 822 828 922 928`,
  MX: `America/Tijuana: 616 646 661 664 665 686  America/Hermosillo: 622 631 633 637 638 642 644 653 662
    America/Mazatlan: 311 612 613 615 624 667 668 669 687  America/Cancun: 983 984 987 998
    America/Ciudad_Juarez: 656  America/Matamoros: 867 868 877 878 899`,
  PS: `Asia/Gaza: 8`,
  PT: `Atlantic/Azores: 292 295 296`,
};

/** `Key: value value ...` lines into a Map from each value to its key. */
function byKey(table: string): Map<string, string> {
  const map = new Map<string, string>();
  let key = "";
  for (const token of table.split(/\s+/)) {
    if (token.endsWith(":")) key = token.slice(0, -1);
    else if (token) map.set(token, key);
  }
  return map;
}

function countryZones(table: string): Map<string, string> {
  const map = new Map<string, string>();
  let region = "";
  const tokens = table.split(/\s+/).filter(Boolean);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.endsWith("/")) region = token;
    else map.set(token, region + tokens[++i]);
  }
  return map;
}

const NANP = byKey(NANP_ZONE_CODES);
const COUNTRY_ZONES = countryZones(COUNTRY_ZONE_TABLE);
const PREFIX_ZONES = new Map(Object.entries(PREFIX_ZONE_TABLES).map(([country, table]) => [country, byKey(table)]));
const E164 = /^\+[1-9]\d{6,14}$/;

// The 3-argument PhoneNumber constructor and Metadata's numbering-plan methods are public in
// libphonenumber-js/core but typed narrowly.
const TypedNumber = PhoneNumber as unknown as new (country: string, national: string, json: unknown) => { getType(): unknown };
const plans = new Metadata(metadata) as unknown as { selectNumberingPlan(c: string): void; leadingDigits(): string | undefined };
type Plan = { country: string; leading: RegExp | null };
const CALLING_CODES = new Map<string, Plan[]>(
  Object.entries(metadata.country_calling_codes).map(([code, countries]) => [
    code,
    countries.map((country) => {
      plans.selectNumberingPlan(country);
      const leading = plans.leadingDigits();
      return { country, leading: leading ? new RegExp(leading) : null };
    }),
  ]),
);

/**
 * The ISO country of an E.164 number, decided as libphonenumber's parser decides it (getCountryByNationalNumber)
 * without the cost of a parse; null when the number is not E.164 or its calling code is unknown.
 */
export function phoneCountry(e164: string): string | null {
  if (!E164.test(e164)) return null;
  const code = callingCodeOf(e164);
  return code ? countryOf(CALLING_CODES.get(code)!, e164.slice(1 + code.length)) : null;
}

/** The IANA zone of an E.164 number's recipient, or null when the number says nothing about it. */
export function recipientTimeZone(e164: string): string | null {
  if (!E164.test(e164)) return null;
  if (e164.length === 12 && e164[1] === "1") {
    const zone = NANP.get(e164.slice(2, 5));
    if (zone) return zone;
  }
  const code = callingCodeOf(e164);
  if (!code) return null;
  const national = e164.slice(1 + code.length);
  const country = countryOf(CALLING_CODES.get(code)!, national);
  return prefixZone(country, national) ?? COUNTRY_ZONES.get(country) ?? null;
}

/** Calling codes are prefix free: the first one an E.164 number starts with is its own. */
function callingCodeOf(e164: string): string | undefined {
  for (let length = 1; length <= 3; length++) {
    const code = e164.slice(1, 1 + length);
    if (CALLING_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * The code's only country or, where countries share it, the first whose leading digits match or, lacking
 * leading digits, whose number types recognise the number; one no country claims stays with the code's main
 * country (listed first).
 */
function countryOf(countries: Plan[], national: string): string {
  if (countries.length > 1) {
    for (const { country, leading } of countries) {
      if (leading ? national.search(leading) === 0 : new TypedNumber(country, national, metadata).getType()) return country;
    }
  }
  return countries[0]!.country;
}

function prefixZone(country: string, national: string): string | undefined {
  const prefixes = PREFIX_ZONES.get(country);
  if (!prefixes) return undefined;
  // Mexican mobiles were once written with a 1 after the country code; the area code follows it.
  const digits = country === "MX" && national.length === 11 && national[0] === "1" ? national.slice(1) : national;
  for (let length = 3; length >= 1; length--) {
    const zone = prefixes.get(digits.slice(0, length));
    if (zone) return zone;
  }
  return undefined;
}

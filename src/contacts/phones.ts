import { Metadata, PhoneNumber } from "libphonenumber-js/core";
import { getCountries, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import metadataJson from "libphonenumber-js/max/metadata";

const COUNTRIES = new Set<string>(getCountries());

/** The ISO region of a locale such as 'en-US' ('US'); undefined when the locale names none we know. */
export function regionFromLocale(locale: string | null | undefined): CountryCode | undefined {
  const region = (locale ?? "").split(/[-_]/)[1]?.toUpperCase();
  return region && COUNTRIES.has(region) ? (region as CountryCode) : undefined;
}

export function isKnownRegion(region: string | null | undefined): region is CountryCode {
  return !!region && COUNTRIES.has(region.toUpperCase());
}

const parse = (input: string, region: CountryCode | undefined) => parsePhoneNumberFromString(input, region ? { defaultCountry: region } : undefined);

/** "00" dialled before a country code, as most of the world writes international numbers ("0049 160 …"). */
const INTERNATIONAL_00 = /^\s*0[\s.\-\/]*0[\s.\-\/]*/;
/**
 * A Mexican mobile as written before 2019, "+52 1" and ten digits: Mexico dropped the 1 and the library's metadata
 * no longer accepts it, while old lists and phones' address books still carry it. The same number without the 1.
 */
const MEXICO_OLD_MOBILE = /^\+521(\d{10})$/;

/**
 * Full validation with the library's complete ('max') metadata: E.164, or null when not a valid number. Read in the
 * region first; where that is not a valid number, "00" and a country code (the library knows "00" only as the
 * prefix of the regions that dial it, and "0044 7500 …" read as a US number is not one), and "+52 1" and a mobile.
 */
function validate(input: string, region: CountryCode | undefined): string | null {
  const parsed = parse(input, region);
  if (parsed?.isValid()) return parsed.number;
  if (INTERNATIONAL_00.test(input)) return validate(input.replace(INTERNATIONAL_00, "+"), region);
  const old = parsed && MEXICO_OLD_MOBILE.exec(parsed.number);
  if (old) {
    const mobile = parse(`+52${old[1]}`, undefined);
    if (mobile?.isValid()) return mobile.number;
  }
  return null;
}

// Metadata and the 3-argument PhoneNumber constructor are public in libphonenumber-js/core but typed narrowly.
type MetadataApi = { getCountryCodesForCallingCode(code: string): string[] | undefined; selectNumberingPlan(c: string): void; leadingDigits(): string | undefined };
const newMetadata = () => new Metadata(metadataJson) as unknown as MetadataApi;
const CorePhoneNumber = PhoneNumber as unknown as new (country: string, national: string, metadata: unknown) => { getType(): string | undefined; isValid(): boolean };
const NANP = new Set(newMetadata().getCountryCodesForCallingCode("1") ?? []);
const NANP_ORDER = [...NANP] as CountryCode[];
const nanpPlans = NANP_ORDER.map((country) => {
  const m = newMetadata();
  m.selectNumberingPlan(country);
  const leading = m.leadingDigits();
  return { country, leading: leading ? new RegExp(leading) : null };
});

/**
 * The country of a NANP national number, decided exactly as the library's parser does for calling code 1
 * (getCountryByNationalNumber): the first country whose leading digits match, or, for countries without
 * leading digits, whose number types recognise the number.
 */
function nanpCountry(national: string): CountryCode | undefined {
  for (const { country, leading } of nanpPlans) {
    if (leading) {
      if (national.search(leading) === 0) return country;
    } else if (new CorePhoneNumber(country, national, metadataJson).getType()) {
      return country;
    }
  }
  return undefined;
}

/**
 * Exact fast path for North American numbers written as bare digits ("+1" and 10 digits, or 10 digits or
 * "1" and 10 digits with a NANP default region): the library's string extraction is skipped (for such input
 * it yields calling code 1 and the last 10 digits), its full validation is not.
 */
const NANP_INTL = /^\+1([2-9]\d{9})$/;
const NANP_NATIONAL = /^1?([2-9]\d{9})$/;
function validateNanp(bare: string, region: CountryCode | undefined): string | null | undefined {
  const m = NANP_INTL.exec(bare) ?? (region && NANP.has(region) ? NANP_NATIONAL.exec(bare) : null);
  if (!m) return undefined;
  const national = m[1]!;
  const country = nanpCountry(national);
  return country && new CorePhoneNumber(country, national, metadataJson).isValid() ? `+1${national}` : null;
}

const SEPARATORS = /[\s().\-\/\u00a0]/g;
const PLAIN = /^\+?\d{3,17}$/;

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
/** "a United States number", "an India number". */
function numberOf(country: string): string {
  const name = regionNames.of(country) ?? country;
  return `${/^[AEIO]/.test(name) ? "an" : "a"} ${name} number`;
}

const callingCodes = newMetadata();
/**
 * A number written without its country code, after a trunk prefix 0, is looked for in every other country (a
 * fraction of a millisecond each, about 10 ms a number) at most this many times per normaliser; past it, the
 * reason names no code.
 */
const CODE_SEARCHES = 200;

/**
 * The country codes of the countries where `raw` (written without one) is a valid mobile number, most likely first:
 * those of numbers already read by the same normaliser (`seen`: the first three digits of each, calling codes being
 * prefix-free), then the rest.
 */
function codesWhereMobile(raw: string, region: CountryCode | undefined, seen: Set<string>): string[] {
  const codes = new Set<string>();
  for (const country of COUNTRY_LIST) {
    if (country === region) continue;
    const p = parse(raw, country);
    if (p?.isValid() && /MOBILE/.test(p.getType() ?? "")) codes.add(p.countryCallingCode);
  }
  const known = [...codes].filter((c) => [...seen].some((s) => s.startsWith(c)));
  return known.length ? known : [...codes];
}
const COUNTRY_LIST = getCountries();

/** "+44", "+44 or +91", "+44, +91 or +964". */
const orList = (codes: string[]) => codes.map((c) => `+${c}`).join(", ").replace(/, ([^,]*)$/, " or $1");

/**
 * Why a phone number is not valid, said so that the user can fix the row: the country it was read as and what to do
 * ("Invalid phone number: 07500 123456 (read as a United States number: add +44 or choose the country)").
 */
function invalidReason(raw: string, region: CountryCode | undefined, seen: Set<string>, search: boolean): string {
  const digits = raw.replace(/\D/g, "");
  const invalid = `Invalid phone number: ${raw.slice(0, 40)}`;
  if (!digits.length) return invalid;
  if (digits.length < 7) return `${invalid} (too short for a phone number)`;
  const international = raw.replace(INTERNATIONAL_00, "+");
  if (international.startsWith("+")) {
    const after = international.replace(/\D/g, "");
    const code = [1, 2, 3].map((n) => after.slice(0, n)).find((c) => callingCodes.getCountryCodesForCallingCode(c)?.length);
    const country = code && callingCodes.getCountryCodesForCallingCode(code)![0]!;
    return country ? `${invalid} (read as ${numberOf(country)} (+${code}): check its digits)` : `${invalid} (no country has the code it starts with)`;
  }
  if (!region) return `${invalid} (no country chosen: add its country code or choose the country)`;
  // Written as at home in another country: after that country's trunk prefix, 0 in most.
  const codes = search && digits.startsWith("0") && digits.length <= 14 ? codesWhereMobile(raw, region, seen) : [];
  const fix = codes.length === 1 ? `add +${codes[0]}` : codes.length && codes.length <= 3 ? `add its country code (${orList(codes)})` : "add its country code";
  return `${invalid} (read as ${numberOf(region)}: ${fix} or choose the country)`;
}

/**
 * A phone normaliser for bulk work. The fast path is exact: separators (spaces, dots, dashes, slashes,
 * parentheses) carry no meaning to libphonenumber, so inputs that differ only by them share one cache entry
 * keyed by region and the bare digits; every distinct number is still fully validated once by the library.
 * Anything else (letters, extensions, '00' prefixes...) goes to the library as typed.
 */
export class PhoneNormalizer {
  private cache = new Map<string, string | null>();
  constructor(
    readonly region: CountryCode | undefined,
    private readonly maxEntries = 250_000,
  ) {}

  normalize(input: string): string | null {
    const raw = input.trim();
    if (!raw) return null;
    const bare = raw.replace(SEPARATORS, "");
    if (!PLAIN.test(bare)) return this.note(validate(raw, this.region));
    let hit = this.cache.get(bare);
    if (hit !== undefined) return hit;
    const nanp = validateNanp(bare, this.region);
    hit = this.note(nanp === undefined ? validate(bare, this.region) : nanp);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(bare, hit);
    return hit;
  }

  /** The first three digits of the valid numbers read: which country codes the list holds. */
  private seen = new Set<string>();
  private searches = 0;
  private reasons = new Map<string, string>();

  private note(e164: string | null) {
    if (e164 && this.seen.size < 1000) this.seen.add(e164.slice(1, 4));
    return e164;
  }

  /** Why `input` (which normalize refused) is not a valid number, naming the country it was read as. */
  whyInvalid(input: string): string {
    const raw = input.trim();
    let reason = this.reasons.get(raw);
    if (reason === undefined) {
      reason = invalidReason(raw, this.region, this.seen, this.searches < CODE_SEARCHES);
      if (reason.includes(": add")) this.searches++;
      if (this.reasons.size >= 10_000) this.reasons.clear();
      this.reasons.set(raw, reason);
    }
    return reason;
  }
}

/** One number typed by a user, in a region (ISO code); E.164 or null. */
export function normalizePhone(input: string, region: CountryCode | undefined): string | null {
  const raw = input.trim();
  return raw ? validate(raw, region) : null;
}

/** Why one number typed by a user is not valid (normalizePhone refused it), naming the country it was read as. */
export function whyInvalidPhone(input: string, region: CountryCode | undefined): string {
  return invalidReason(input.trim(), region, new Set(), true);
}

/** The digits of a query when it looks like a phone number typed in any format ("(415) 555"), else null. */
export function phoneDigitsOf(q: string): string | null {
  if (!/^[\d\s().\-+\/]+$/.test(q)) return null;
  const digits = q.replace(/\D/g, "");
  return digits.length ? digits : null;
}

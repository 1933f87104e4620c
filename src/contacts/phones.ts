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

/** Full validation with the library's complete ('max') metadata: E.164, or null when not a valid number. */
function validate(input: string, region: CountryCode | undefined): string | null {
  const parsed = parsePhoneNumberFromString(input, region ? { defaultCountry: region } : undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
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
    if (!PLAIN.test(bare)) return validate(raw, this.region);
    let hit = this.cache.get(bare);
    if (hit !== undefined) return hit;
    hit = validateNanp(bare, this.region);
    if (hit === undefined) hit = validate(bare, this.region);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
    this.cache.set(bare, hit);
    return hit;
  }
}

/** One number typed by a user, in a region (ISO code); E.164 or null. */
export function normalizePhone(input: string, region: CountryCode | undefined): string | null {
  const raw = input.trim();
  return raw ? validate(raw, region) : null;
}

/** The digits of a query when it looks like a phone number typed in any format ("(415) 555"), else null. */
export function phoneDigitsOf(q: string): string | null {
  if (!/^[\d\s().\-+\/]+$/.test(q)) return null;
  const digits = q.replace(/\D/g, "");
  return digits.length ? digits : null;
}

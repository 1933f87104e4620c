import { getCountries, getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { cx, Input } from "./ui";

export type Country = { code: CountryCode; name: string; dialCode: string; flag: string };

/** The flag emoji of a region: its two letters as regional-indicator symbols. */
export const flagOf = (code: string) =>
  /^[A-Z]{2}$/.test(code) ? String.fromCodePoint(...[...code].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65)) : "🏳️";

const countryCache = new Map<string, Country[]>();

/** Every country libphonenumber-js knows, named in the user's language, sorted by name. */
export function countriesFor(locale: string): Country[] {
  const cached = countryCache.get(locale);
  if (cached) return cached;
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([locale, "en"], { type: "region" });
  } catch {
    names = null;
  }
  const list = getCountries().map((code) => {
    let name: string = code;
    try {
      name = names?.of(code) ?? code;
    } catch {
      name = code;
    }
    return { code, name, dialCode: `+${getCountryCallingCode(code)}`, flag: flagOf(code) };
  });
  list.sort((a, b) => a.name.localeCompare(b.name, locale));
  countryCache.set(locale, list);
  return list;
}

/** The region of a locale ("en-US" -> "US"), when libphonenumber-js knows it. */
export function regionOfLocale(locale: string | undefined): CountryCode | null {
  if (!locale) return null;
  try {
    const region = new Intl.Locale(locale).maximize().region;
    return region && isSupportedCountry(region) ? region : null;
  } catch {
    return null;
  }
}

/** Calling codes shared by several countries: the country a typed dial code selects. */
const MAIN_COUNTRY: Record<string, CountryCode> = {
  "1": "US", "7": "RU", "44": "GB", "47": "NO", "61": "AU", "212": "MA", "262": "RE", "290": "SH", "358": "FI", "590": "GP", "599": "CW",
};

export function countryForDialCode(dialCode: string, current: CountryCode | null): CountryCode | null {
  const digits = dialCode.replace(/\D/g, "");
  if (!digits) return null;
  if (current && getCountryCallingCode(current) === digits) return current;
  if (MAIN_COUNTRY[digits]) return MAIN_COUNTRY[digits]!;
  return getCountries().find((c) => getCountryCallingCode(c) === digits) ?? null;
}

/** The country code field is forced to start with + and keep only digits. */
export const cleanDialCode = (value: string) => `+${value.replace(/\D/g, "").slice(0, 4)}`;

export function matchesCountry(c: Country, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const digits = q.replace(/^\+/, "");
  return (
    c.name.toLowerCase().includes(q) ||
    c.code.toLowerCase() === q ||
    (/^\d+$/.test(digits) && c.dialCode.slice(1).startsWith(digits))
  );
}

/** A searchable list of every country with flag, name and dial code, 200 px high. */
export function CountryPicker({
  value,
  onChange,
  locale,
}: {
  value: CountryCode | null;
  onChange: (c: Country) => void;
  locale: string;
}) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const countries = useMemo(() => countriesFor(locale), [locale]);
  const shown = useMemo(() => countries.filter((c) => matchesCountry(c, query)), [countries, query]);
  const current = countries.find((c) => c.code === value) ?? null;
  const box = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const [pos, setPos] = useState<{ top: number; left: number } | null>(null);
  const listId = useId();

  // The list is positioned against the viewport so a dialog's scrolling never clips it.
  useEffect(() => {
    if (!open) return;
    const place = () => {
      const r = trigger.current?.getBoundingClientRect();
      if (r) setPos({ top: r.bottom + 4, left: Math.max(8, Math.min(r.left, window.innerWidth - 296)) });
    };
    place();
    window.addEventListener("resize", place);
    window.addEventListener("scroll", place, true);
    return () => {
      window.removeEventListener("resize", place);
      window.removeEventListener("scroll", place, true);
    };
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);

  const pick = (c: Country) => {
    onChange(c);
    setOpen(false);
    setQuery("");
  };

  return (
    <div ref={box} className="relative shrink-0">
      <button
        ref={trigger}
        type="button"
        aria-label={current ? `Country: ${current.name} ${current.dialCode}` : "Choose country"}
        aria-haspopup="listbox"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        className="flex h-full items-center gap-1 rounded-lg border border-slate-300 bg-white px-2 py-2 text-sm shadow-sm hover:bg-slate-50"
      >
        <span aria-hidden className="text-lg leading-none">{current?.flag ?? "🌐"}</span>
        <span aria-hidden className="text-xs text-slate-500">▾</span>
      </button>
      {open && (
        <div
          style={pos ? { position: "fixed", top: pos.top, left: pos.left } : undefined}
          className="z-[60] w-72 rounded-lg border border-slate-200 bg-white p-2 shadow-lg"
        >
          <Input
            autoFocus
            aria-label="Search countries"
            placeholder="Search country, code or +dial"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && shown[0]) {
                e.preventDefault();
                pick(shown[0]);
              }
              if (e.key === "Escape") {
                e.stopPropagation();
                setOpen(false);
              }
            }}
          />
          <ul id={listId} role="listbox" aria-label="Countries" className="mt-2 h-[200px] overflow-y-auto">
            {shown.map((c) => (
              <li
                key={c.code}
                role="option"
                aria-selected={c.code === value}
                onClick={() => pick(c)}
                className={cx(
                  "flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm hover:bg-slate-100",
                  c.code === value && "bg-brand-50 font-medium",
                )}
              >
                <span aria-hidden className="text-lg leading-none">{c.flag}</span>
                <span className="flex-1 truncate">{c.name}</span>
                <span className="text-xs text-slate-500">{c.dialCode}</span>
                <span className="w-6 text-right text-xs text-slate-400">{c.code}</span>
              </li>
            ))}
            {shown.length === 0 && <li className="px-2 py-1.5 text-sm text-slate-500">No country matches</li>}
          </ul>
        </div>
      )}
    </div>
  );
}

export type PhoneValue = { country: CountryCode | null; dialCode: string; number: string };

export const emptyPhone = (country: CountryCode | null): PhoneValue => ({
  country,
  dialCode: country ? `+${getCountryCallingCode(country)}` : "+",
  number: "",
});

/** A stored E.164 number split back into country, dial code and national digits. */
export function phoneValueFrom(e164: string | null | undefined, fallback: CountryCode | null): PhoneValue {
  if (!e164) return emptyPhone(fallback);
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return { ...emptyPhone(fallback), number: e164.replace(/\D/g, "") };
  const country = parsed.country ?? countryForDialCode(parsed.countryCallingCode, fallback);
  return { country, dialCode: `+${parsed.countryCallingCode}`, number: parsed.nationalNumber };
}

/** What is sent: E.164 when the number parses for the country, else dial code plus the digits; "" when empty. */
export function phoneToSubmit(v: PhoneValue): string {
  const digits = v.number.replace(/\D/g, "");
  if (!digits) return "";
  const dial = v.dialCode.replace(/\D/g, "");
  if (v.country && getCountryCallingCode(v.country) === dial) {
    const parsed = parsePhoneNumberFromString(digits, v.country);
    if (parsed?.isValid()) return parsed.number;
  }
  return `+${dial}${digits.replace(/^0+/, "")}`;
}

/** Country picker, editable dial code and a digits-only number field. */
export function PhoneInput({
  id,
  value,
  onChange,
  locale,
}: {
  id: string;
  value: PhoneValue;
  onChange: (v: PhoneValue) => void;
  locale: string;
}) {
  return (
    <div className="flex gap-2">
      <CountryPicker
        value={value.country}
        locale={locale}
        onChange={(c) => onChange({ ...value, country: c.code, dialCode: c.dialCode })}
      />
      <Input
        aria-label="Country code"
        className="!w-20 shrink-0"
        inputMode="tel"
        value={value.dialCode}
        onChange={(e) => {
          const dialCode = cleanDialCode(e.target.value);
          onChange({ ...value, dialCode, country: countryForDialCode(dialCode, value.country) });
        }}
      />
      <Input
        id={id}
        inputMode="numeric"
        autoComplete="tel-national"
        placeholder="Phone number"
        value={value.number}
        onChange={(e) => onChange({ ...value, number: e.target.value.replace(/\D/g, "") })}
      />
    </div>
  );
}

import { expect, test } from "bun:test";
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import { normalizePhone, PhoneNormalizer, phoneDigitsOf, regionFromLocale, whyInvalidPhone } from "../../src/contacts/phones";

test("the bulk normaliser answers exactly what one number's full libphonenumber validation answers", () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const inputs: string[] = ["", "  ", "n/a", "+44 20 7946 0958", "020 7946 0958", "0049 30 1234567", "+1 (415) 555-2671 ext. 7", "1-800-FLOWERS", "+33 6 12 34 56 78"];
  for (let i = 0; i < 20_000; i++) {
    const d = String(1_000_000_000 + Math.floor(rand() * 8_999_999_999));
    const f = i % 6;
    inputs.push(f === 0 ? `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}` : f === 1 ? `+1${d}` : f === 2 ? `1.${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6)}` : f === 3 ? d : f === 4 ? `+${d}` : d.slice(0, 7 + (i % 5)));
  }
  for (const region of ["US", "CA", "GB", "DE"] as CountryCode[]) {
    const n = new PhoneNormalizer(region, 1000);
    for (const s of inputs) {
      expect(`${s} ${n.normalize(s)}`).toBe(`${s} ${normalizePhone(s, region)}`);
      // The library's own answer wherever it accepts the number ("00" before a code it reads only in the regions dialling it).
      const p = s.trim() ? parsePhoneNumberFromString(s, region) : undefined;
      if (p?.isValid()) expect(n.normalize(s)).toBe(p.number);
    }
  }
  // 80,000 full libphonenumber parses: ~2 s on a quiet core, 6 s on a loaded machine.
}, 30_000);

test("locale regions and digit queries", () => {
  expect(regionFromLocale("en-US")).toBe("US");
  expect(regionFromLocale("fr_FR")).toBe("FR");
  expect(regionFromLocale("en")).toBeUndefined();
  expect(phoneDigitsOf("(415) 555")).toBe("415555");
  expect(phoneDigitsOf("ann")).toBeNull();
});

test("international lists: '00' before the country code and Mexican mobiles written '+52 1' (issue 28 item 4)", () => {
  const us = new PhoneNormalizer("US");
  const read = (s: string) => [us.normalize(s), normalizePhone(s, "US"), normalizePhone(s, "DE")];
  expect(read("0049 160 1234567")).toEqual(["+491601234567", "+491601234567", "+491601234567"]);
  expect(read("0044 7500 123456")).toEqual(["+447500123456", "+447500123456", "+447500123456"]);
  expect(read("00447500123456")).toEqual(["+447500123456", "+447500123456", "+447500123456"]);
  expect(read("0052 55 1234 5678")).toEqual(["+525512345678", "+525512345678", "+525512345678"]);
  expect(read("+52 1 55 1234 5678")).toEqual(["+525512345678", "+525512345678", "+525512345678"]);
  expect(read("+5215512345678")).toEqual(["+525512345678", "+525512345678", "+525512345678"]);
  expect(read("0052 1 222 123 4567")).toEqual(["+522221234567", "+522221234567", "+522221234567"]);
  // The US's own international prefix still works; a number of the region starting 00 is not made international.
  expect(read("011 44 7500 123456")).toEqual(["+447500123456", "+447500123456", null]);
  expect(normalizePhone("00 41 44 668 18 00", "CH")).toBe("+41446681800");
  // Not a valid number whichever way it is read.
  expect(read("0052 1 55 1234")).toEqual([null, null, null]);
  expect(read("+52 1 55 1234 56789")).toEqual([null, null, null]);
});

test("an invalid number's reason names the country it was read as and what to do (issue 28 item 4)", () => {
  const us = new PhoneNormalizer("US");
  expect(us.whyInvalid("07500 123456")).toBe(
    "Invalid phone number: 07500 123456 (read as a United States number: add its country code (+44, +91 or +964) or choose the country)",
  );
  // With UK numbers in the list, the code they have.
  const list = new PhoneNormalizer("US");
  expect(list.normalize("0044 7911 123456")).toBe("+447911123456");
  expect(list.whyInvalid("07500 123456")).toBe("Invalid phone number: 07500 123456 (read as a United States number: add +44 or choose the country)");
  expect(us.whyInvalid("(555) 555-555")).toBe("Invalid phone number: (555) 555-555 (read as a United States number: add its country code or choose the country)");
  expect(us.whyInvalid("+44 20 1234")).toBe("Invalid phone number: +44 20 1234 (read as a United Kingdom number (+44): check its digits)");
  expect(us.whyInvalid("0049 0 1234 5678")).toBe("Invalid phone number: 0049 0 1234 5678 (read as a Germany number (+49): check its digits)");
  expect(us.whyInvalid("+999 1234 5678")).toBe("Invalid phone number: +999 1234 5678 (no country has the code it starts with)");
  expect(us.whyInvalid("123")).toBe("Invalid phone number: 123 (too short for a phone number)");
  expect(us.whyInvalid("call me")).toBe("Invalid phone number: call me");
  expect(whyInvalidPhone("0412 345 678", "GB")).toBe(
    "Invalid phone number: 0412 345 678 (read as a United Kingdom number: add its country code (+61 or +358) or choose the country)",
  );
});

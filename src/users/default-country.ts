import type { CountryCode } from "libphonenumber-js";
import { getCountryCallingCode, parsePhoneNumberFromString } from "libphonenumber-js/max";
import { Metadata } from "libphonenumber-js/core";
import metadata from "libphonenumber-js/max/metadata";
import type { AppContext } from "../context";
import { isKnownRegion, normalizePhone, regionFromLocale } from "../contacts/phones";
import { badRequest } from "../http/errors";
import { findUserById, type User } from "./queries";

/** The country of each offered time zone (regional-options.ts); UTC names none. */
const ZONE_COUNTRY: Record<string, CountryCode> = {
  "Pacific/Honolulu": "US", "America/Anchorage": "US", "America/Los_Angeles": "US", "America/Phoenix": "US",
  "America/Denver": "US", "America/Chicago": "US", "America/New_York": "US", "America/Halifax": "CA",
  "America/Sao_Paulo": "BR", "Europe/London": "GB", "Europe/Paris": "FR", "Europe/Berlin": "DE", "Europe/Athens": "GR",
  "Africa/Johannesburg": "ZA", "Asia/Dubai": "AE", "Asia/Kolkata": "IN", "Asia/Singapore": "SG", "Asia/Shanghai": "CN",
  "Asia/Tokyo": "JP", "Australia/Sydney": "AU", "Pacific/Auckland": "NZ",
};

/**
 * The country phone numbers written without "+" are read in: the user's own choice once made; until then the
 * country of their first sender number (asked of the numbers' owner through ctx.firstSenderNumber: users sits below
 * phone-numbers), else of their time zone, else of their locale, else the US. The language setting alone no longer
 * decides it: "English (United Kingdom)" is a language choice, not where the customers live.
 */
export async function defaultCountryOf(ctx: AppContext, user: User): Promise<CountryCode> {
  if (isKnownRegion(user.defaultCountry)) return user.defaultCountry.toUpperCase() as CountryCode;
  const first = await ctx.firstSenderNumber(user.id);
  return (first && senderCountry(first)) || ZONE_COUNTRY[user.timezone] || regionFromLocale(user.locale) || "US";
}

/** As defaultCountryOf, for an account known by its id (the US for an account that is gone). */
export async function defaultCountryOfId(ctx: AppContext, userId: string): Promise<CountryCode> {
  const user = await findUserById(ctx, userId);
  return user ? defaultCountryOf(ctx, user) : "US";
}

const calling = new Metadata(metadata) as unknown as { getCountryCodesForCallingCode(code: string): CountryCode[] | undefined };

/**
 * The country of a sender number. Where countries share a calling code (+44: the UK, Guernsey, Jersey, the Isle
 * of Man), its main country, whose numbering plan reads the others' numbers too; a +1 number keeps its own
 * country (Canada stays Canada), as every North American plan reads the same ten digits.
 */
function senderCountry(phone: string): CountryCode | undefined {
  const country = parsePhoneNumberFromString(phone)?.country;
  if (!country) return undefined;
  const code = getCountryCallingCode(country);
  return code === "1" ? country : (calling.getCountryCodesForCallingCode(code)?.[0] ?? country);
}

/** A recipient typed by a user, in E.164 using the account's default country; the spec's message otherwise. */
export async function recipientPhone(ctx: AppContext, userId: string, input: string): Promise<string> {
  const phone = normalizePhone(input, await defaultCountryOfId(ctx, userId));
  if (!phone) throw badRequest("Please enter a valid phone number");
  return phone;
}

import type { AppContext } from "../context";
import { badRequest } from "../http/errors";
import { INDUSTRIES } from "../../shared/users/regional-options";
import { businessContactOf, businessNameOf, defaultHelpReply, helpReplyOf, updateUser, type User } from "./queries";

/** The business profile and the user's own name, as Account Settings shows them (the email change: auth). */
export function profileView(user: User, pendingEmail: string | null) {
  return {
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    /** An email change waiting for the code sent to this address. */
    pendingEmail,
    businessName: user.businessName ?? "",
    industry: user.industry ?? "",
    businessContact: user.businessContact ?? "",
    /** What replies are signed with and the HELP reply gives, after the fallbacks (the owner's name, the email). */
    signedAs: businessNameOf(user),
    helpContact: businessContactOf(user),
  };
}

export type ProfilePatch = { firstName?: string; lastName?: string; businessName?: string; industry?: string; businessContact?: string };

const PHONE = /^\+?[\d\s().\-]{7,20}$/;
const SITE = /^(https?:\/\/)?[\p{L}\d-]+(\.[\p{L}\d-]+)+(\/\S*)?$/iu;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether a HELP contact is one a texter can use: a phone number, an email address or a website. */
export function isContact(text: string): boolean {
  return EMAIL.test(text) || SITE.test(text) || (PHONE.test(text) && text.replace(/\D/g, "").length >= 7);
}

export async function updateProfile(ctx: AppContext, user: User, patch: ProfilePatch): Promise<User> {
  const fields: Partial<User> = {};
  if (patch.firstName !== undefined) fields.firstName = patch.firstName.trim();
  if (patch.lastName !== undefined) fields.lastName = patch.lastName.trim();
  if (patch.businessName !== undefined) fields.businessName = patch.businessName.trim() || null;
  if (patch.industry !== undefined) {
    if (patch.industry && !(INDUSTRIES as readonly string[]).includes(patch.industry)) throw badRequest("Please choose your industry");
    fields.industry = patch.industry || null;
  }
  if (patch.businessContact !== undefined) {
    const contact = patch.businessContact.trim();
    if (contact && !isContact(contact)) throw badRequest("Please enter a phone number, an email address or a website for HELP replies");
    fields.businessContact = contact || null;
  }
  return updateUser(ctx, user.id, fields);
}

export const HELP_REPLY_MAX = 480;

/** The HELP reply as the user writes it: empty, or the default as it reads now, follows the default. */
export function helpReplyFields(user: User, text: string): Pick<User, "helpReply"> {
  const written = text.trim();
  return { helpReply: !written || written === defaultHelpReply(user) ? null : written };
}

export function helpReplyView(user: User) {
  return { helpReply: helpReplyOf(user), helpReplyDefault: defaultHelpReply(user), helpReplyCustom: user.helpReply !== null };
}

/**
 * An account's link domain as typed (issue 32): an origin such as https://go.example.com, without a path; empty
 * goes back to the installation's. Null when it is not an origin.
 */
export function parseLinkDomain(value: string): { linkDomain: string | null } | null {
  const v = value.trim().replace(/\/+$/, "");
  if (!v) return { linkDomain: null };
  if (!/^https?:\/\/[^/\s?#@]+$/i.test(v)) return null;
  try {
    return { linkDomain: new URL(v).origin };
  } catch {
    return null;
  }
}

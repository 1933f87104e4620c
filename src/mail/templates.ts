import type { Email } from "./mailer";

export function verificationCodeEmail(to: string, code: string, minutes: number): Email {
  return {
    to,
    purpose: "verification code",
    subject: `Your smsdesk verification code: ${code}`,
    text: `Your verification code is ${code}.\n\nIt expires in ${minutes} minutes. If you did not create an smsdesk account, ignore this email.`,
  };
}

/** The account's passkeys as the reset email lists them: each name and when it was added, in the account's zone. */
export type PasskeyListing = { passkeys: { name: string; added: string }[]; timeZone: string };

export function passwordResetEmail(to: string, link: string, minutes: number, listing: PasskeyListing): Email {
  // A passkey signs in without the password, so a new password leaves one an intruder added working: the owner
  // must see them to notice one they did not add.
  const passkeys = listing.passkeys.length
    ? `Passkeys on this account sign in without its password, so a new password does not remove them. They are:\n` +
      listing.passkeys.map((p) => `- "${p.name}", added ${p.added}\n`).join("") +
      `(times in ${listing.timeZone}). If you did not add one of them, remove it under Settings > Security once you are signed in.`
    : "This account has no passkeys.";
  return {
    to,
    purpose: "password reset link",
    subject: "Reset your smsdesk password",
    text: `Someone asked to reset the password of your smsdesk account.\n\nOpen this link to choose a new password (it works once and expires in ${minutes} minutes):\n${link}\n\nIf it was not you, ignore this email; your password stays as it is.\n\n${passkeys}`,
  };
}

export function emailChangeCodeEmail(to: string, code: string, minutes: number): Email {
  return {
    to,
    purpose: "email change code",
    subject: `Your smsdesk verification code: ${code}`,
    text: `Your verification code is ${code}.\n\nEnter it in Account Settings to make this address your smsdesk account's email. It expires in ${minutes} minutes. If you did not ask for this, ignore this email; nothing changes.`,
  };
}

export function emailChangedNotice(to: string, newEmail: string): Email {
  return {
    to,
    purpose: "email changed notice",
    subject: "Your smsdesk email address was changed",
    text: `Your smsdesk account's email address is now ${newEmail}; this address no longer signs in.\n\nIf you did not make this change, reset your password from the sign-in page with the new address or ask your administrator.`,
  };
}

/**
 * The owner is told that one of their sessions made something that outlives it (an API key, a webhook): what,
 * when and from where, and how to end it if it was not them.
 */
export function credentialMadeEmail(
  to: string,
  made: { what: string; details: string[]; when: string; from: string; securityUrl: string },
): Email {
  return {
    to,
    purpose: "new credential notice",
    subject: `New ${made.what} on your smsdesk account`,
    text: [
      `A new ${made.what} was set up on your smsdesk account.`,
      "",
      ...made.details,
      `When: ${made.when}`,
      `From: ${made.from}`,
      "",
      "If this was you, there is nothing to do.",
      "",
      `If it was not you, change your password and sign out of your other sessions at ${made.securityUrl} : the API keys and webhooks those sessions set up are revoked with them.`,
    ].join("\n"),
  };
}

/**
 * Sent instead of a code when someone signs up with an address that has an account: the sign-up answers as for a
 * new one, so only the owner learns the account exists.
 */
export function accountExistsEmail(to: string, publicUrl: string, withGoogle: boolean): Email {
  const signIn = withGoogle ? `sign in with Google at ${publicUrl}/auth` : `sign in at ${publicUrl}/auth`;
  const forgot = withGoogle ? "" : `\n\nForgot your password? Choose a new one at ${publicUrl}/auth/forgot-password`;
  return {
    to,
    purpose: "account exists notice",
    subject: "You already have an smsdesk account",
    text: `Someone, perhaps you, tried to create an smsdesk account with this email address, which already has one. No new account was made and nothing about yours changed.\n\nTo use your account, ${signIn}.${forgot}\n\nIf it was not you, you can ignore this email.`,
  };
}

import type { Email } from "./mailer";

export function verificationCodeEmail(to: string, code: string, minutes: number): Email {
  return {
    to,
    purpose: "verification code",
    subject: `Your smsdesk verification code: ${code}`,
    text: `Your verification code is ${code}.\n\nIt expires in ${minutes} minutes. If you did not create an smsdesk account, ignore this email.`,
  };
}

export function passwordResetEmail(to: string, link: string, minutes: number): Email {
  return {
    to,
    purpose: "password reset link",
    subject: "Reset your smsdesk password",
    text: `Someone asked to reset the password of your smsdesk account.\n\nOpen this link to choose a new password (it works once and expires in ${minutes} minutes):\n${link}\n\nIf it was not you, ignore this email; your password stays as it is.`,
  };
}

import type { Transporter } from "nodemailer";

/** `purpose` names the email in the log without its secrets (e.g. "verification code"). */
export type Email = { to: string; subject: string; text: string; html?: string; purpose: string };
export type Mailer = { send(email: Email): Promise<void>; close(): void };

/**
 * SMTP when SMTP_URL is set. Without it nothing is sent: in development mode the whole email (code or link
 * included) goes to the server log, so a developer can go on; in production the log only says which email was
 * not sent, because a log is read and kept by more people than the account's owner. There, an administrator
 * marks users verified or hands them a reset link from the admin portal.
 */
export async function createMailer(opts: {
  smtpUrl: string | null;
  from: string;
  dev: boolean;
  log: (line: string) => void;
}): Promise<Mailer> {
  if (!opts.smtpUrl) {
    opts.log(
      opts.dev
        ? "SMTP_URL is not set: development mode, so verification codes and reset links are written to this log"
        : "SMTP_URL is not set: email is not configured, so no verification code or reset link is sent. An administrator can mark users verified and send reset links from the admin portal",
    );
    return {
      async send(email) {
        if (opts.dev) opts.log(`mail (SMTP_URL not set, not sent) to=${email.to} subject="${email.subject}"\n${email.text}`);
        else opts.log(`email not sent (SMTP_URL not set): ${email.purpose} for ${email.to}`);
      },
      close() {},
    };
  }
  const nodemailer = await import("nodemailer");
  const transport: Transporter = nodemailer.createTransport(opts.smtpUrl);
  return {
    async send({ purpose: _purpose, ...email }) {
      await transport.sendMail({ from: opts.from, ...email });
    },
    close() {
      transport.close();
    },
  };
}

import type { Transporter } from "nodemailer";

export type Email = { to: string; subject: string; text: string; html?: string };
export type Mailer = { send(email: Email): Promise<void>; close(): void };

/**
 * SMTP when SMTP_URL is set. Without it the email goes to the server log, so the operator of a fresh
 * installation can still verify the first accounts; the log warns that SMTP is missing.
 */
export async function createMailer(opts: {
  smtpUrl: string | null;
  from: string;
  log: (line: string) => void;
}): Promise<Mailer> {
  if (!opts.smtpUrl) {
    return {
      async send(email) {
        opts.log(`mail (SMTP_URL not set, not sent) to=${email.to} subject="${email.subject}"\n${email.text}`);
      },
      close() {},
    };
  }
  const nodemailer = await import("nodemailer");
  const transport: Transporter = nodemailer.createTransport(opts.smtpUrl);
  return {
    async send(email) {
      await transport.sendMail({ from: opts.from, ...email });
    },
    close() {
      transport.close();
    },
  };
}

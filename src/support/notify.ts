import type { AppContext } from "../context";
import { registerJobHandler } from "../jobs/jobs";
import { administratorEmails } from "../users/queries";
import { contactMessage, NOTIFY } from "./messages";


/** One line of text from what a visitor typed: no line breaks or other control characters in a subject. */
const oneLine = (text: string, max: number) => text.replace(/[\u0000-\u001f\u007f]+/g, " ").slice(0, max);

/**
 * A contact-form message is emailed to every administrator, so that "We'll get back to you within 24 hours" is kept
 * by someone who knows it arrived; the admin portal's Contact Messages tab keeps them all. Sent from the jobs table
 * (queued with the message, src/support/messages.ts): an SMTP server that is down when the message arrives gets it
 * on a later attempt.
 */
export function registerAdministratorNotices(ctx: AppContext) {
  registerJobHandler(ctx, NOTIFY, async (c, job) => {
    const { messageId } = job.payload as { messageId: string };
    const m = await contactMessage(c, messageId);
    if (!m) return;
    const details = [
      `From: ${m.name} <${m.email}>`,
      ...(m.company ? [`Company: ${m.company}`] : []),
      ...(m.phone ? [`Phone: ${m.phone}`] : []),
      `Priority: ${m.priority}`,
      `Received: ${m.createdAt.toISOString()}`,
    ];
    const text = `A message was sent through the contact form.\n\n${details.join("\n")}\n\nSubject: ${m.subject}\n\n${m.message}\n\nReply to ${m.email}, then mark it handled under Contact Messages: ${c.config.publicUrl}/admin/dashboard\n`;
    for (const to of await administratorEmails(c)) {
      await c.mailer.send({ to, subject: `Contact form: ${oneLine(m.subject, 120)}`, text, purpose: "contact form notice" });
    }
  });
}

// A contact-form message reaches the administrators by email: the form promises an answer within 24 hours, and the
// admin portal's tab was the only place it showed (nobody was told). Sent from the jobs table, to each administrator
// who can act (verified, not disabled).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createOrPromoteAdmin } from "../../src/auth/admins";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.stop());

test("each verified, enabled administrator gets the message by email with the sender to reply to; nobody else does", async () => {
  const [first, second, disabled] = ["ops-a@example.com", "ops-b@example.com", "ops-gone@example.com"];
  for (const email of [first!, second!, disabled!]) await createOrPromoteAdmin(t.ctx, email, "admin-password-1");
  t.ctx.db.$client.run("UPDATE users SET disabled = 1 WHERE email = ?", [disabled!]);
  const customer = await t.signUpVerified();
  const afterSeq = t.lastSeq();

  const res = await t.api("/api/contact", {
    body: { name: "Ada Lovelace", email: "ada@example.com", company: "Engines", subject: "Billing\r\nBcc: spy@example.com", message: "How do I change plans?", priority: "high" },
  });
  expect(res.status).toBe(201);
  const received = t.ctx.db.$client.query("SELECT created_at FROM support_messages WHERE id = ?").get(res.body.id) as { created_at: number };

  for (const admin of [first!, second!]) {
    const mail = await t.waitForEmail(admin, 5000, { afterSeq, match: /^Contact form/ });
    expect(mail.subject).toBe("Contact form: Billing Bcc: spy@example.com");
    expect(mail.text.trim()).toBe(
      [
        "A message was sent through the contact form.",
        "",
        "From: Ada Lovelace <ada@example.com>",
        "Company: Engines",
        "Priority: high",
        `Received: ${new Date(received.created_at).toISOString()}`,
        "",
        "Subject: Billing\r\nBcc: spy@example.com".replace("\r\n", "\n"),
        "",
        "How do I change plans?",
        "",
        `Reply to ada@example.com, then mark it handled under Contact Messages: ${t.ctx.config.publicUrl}/admin/dashboard`,
      ].join("\n"),
    );
  }
  const notices = t.emails.filter((e) => e.seq > afterSeq && e.subject.startsWith("Contact form"));
  expect(notices.map((e) => e.to).sort()).toEqual([[first], [second]]);
  expect(t.emailsTo(customer.user.email).filter((e) => e.subject.startsWith("Contact form"))).toEqual([]);
  expect(t.emailsTo("spy@example.com")).toEqual([]);
});

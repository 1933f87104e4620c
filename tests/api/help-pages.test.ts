// The help pages once said that Chat & Replies and text-to-join keywords "come in a later version" while both were
// shipped: a page must say what the product does. The app-store badges of /pwa-demo ("Coming Soon") are the spec's
// and true (there is no store app).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRIAL_DAYS, TRIAL_PLAN_ID } from "../../src/licenses/licenses";
import { startTestServer } from "../support/test-server";

const publicPages = join(import.meta.dir, "..", "..", "ui", "routes", "public");

test("no public page promises a shipped feature for later", () => {
  const promises = readdirSync(publicPages)
    .filter((f) => f.endsWith(".tsx"))
    .flatMap((f) =>
      readFileSync(join(publicPages, f), "utf8")
        .split("\n")
        .map((line, i) => [`${f}:${i + 1}`, line] as const)
        .filter(([, line]) => /later version|coming soon|not yet available|in a future (version|release)/i.test(line))
        .map(([where]) => where),
    );
  expect(promises).toEqual([]);
});

test("the help's answers about replies and keywords point at the screens that do it", () => {
  const help = readFileSync(join(publicPages, "help.tsx"), "utf8");
  expect(help).toContain("appear in Chat & Replies as a conversation with the contact");
  expect(help).toContain("Create one under Keywords");
});

test("/pricing promises what the product does: a Starter trial and sends refused at the limit, no overage billing", async () => {
  // The trial the page describes is the one sign-up gives, with that plan's limits.
  const t = await startTestServer();
  const plan = t.ctx.db.$client.query("SELECT name, monthly_contacts, monthly_messages, phone_numbers FROM plans WHERE id = ?").get(TRIAL_PLAN_ID);
  await t.stop();
  expect([TRIAL_DAYS, plan]).toEqual([14, { name: "Starter", monthly_contacts: 1000, monthly_messages: 5000, phone_numbers: 1 }]);
  const pricing = readFileSync(join(publicPages, "pricing.tsx"), "utf8");
  expect(pricing).not.toContain("Try any plan in full");
  expect(pricing).not.toMatch(/overage beyond|charged at \$0\.02|\$0\.02 per extra message/i);
  expect(pricing).toContain("Every new account starts with 14 days of the Starter plan for free");
  expect(pricing).toContain("At the limit, smsdesk refuses new sends (or new contacts) until the next month");
});

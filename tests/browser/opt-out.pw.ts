import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("opting a contact out from its consent history asks first, then says so and shows it opted out", async ({ page }) => {
  await app.verifiedAccount({ email: `optout${Date.now()}@example.com` }, page.request);
  await page.goto(`${app.url}/contact-lists`);
  const call = await app.apiAs(page);
  await call("/api/contacts", { firstName: "Grace", lastName: "Hopper", phone: "+14155550142" });
  await page.reload();
  await page.getByRole("button", { name: "Actions for Grace Hopper" }).click();
  await page.getByRole("menuitem", { name: "View consent history" }).click();
  const history = page.getByRole("dialog", { name: "Consent history" });
  await expect(history).toContainText("Grace Hopper is subscribed.");
  await history.getByRole("button", { name: "Opt out" }).click();
  await page.getByRole("dialog", { name: "Opt out contact" }).getByRole("button", { name: "Opt out" }).click();
  await expect(page.getByTestId("toast").filter({ hasText: "Contact opted out" })).toBeVisible();
  await expect(history).toContainText("Grace Hopper is opted out.");
  const contacts = await call<{ data: { status: string }[] }>("/api/contacts");
  expect(contacts.data.map((c) => c.status)).toEqual(["opted_out"]);
});

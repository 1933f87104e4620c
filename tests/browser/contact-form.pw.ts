import { expect, test } from "@playwright/test";
import { Appliance } from "./harness";

// The public /contact form (issue 30 item 4 moved it to useMutation): what is missing is named, a message sent is
// confirmed and the form emptied.
let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("the contact form names missing fields, then sends and empties itself", async ({ page }) => {
  await page.goto(`${app.url}/contact`);
  const send = page.getByRole("button", { name: "Send Message" });
  await send.click();
  await expect(page.getByText("Please fill in all required fields")).toBeVisible();

  await page.getByLabel("Name *").fill("Rosa Diaz");
  await page.getByLabel("Email *").fill(`contactform${Date.now()}@example.com`);
  await page.getByLabel("Subject *").fill("Question about plans");
  await page.getByLabel("Message *").fill("Does the Pro plan include two numbers?");
  await send.click();
  await expect(page.getByText("Message Sent!")).toBeVisible();
  await expect(page.getByText("We'll get back to you within 24 hours.")).toBeVisible();
  await expect(page.getByLabel("Message *")).toHaveValue("");
  await expect(send).toBeEnabled();
});

// /api/docs as a developer reads it (issue 28 item 8): a section per endpoint with its permission, parameters, body
// fields and answers, reached from the endpoint list, at 1280 and 390 px.
import { expect, test } from "@playwright/test";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = process.env.PW_OUTPUT_DIR ?? "test-results";

let app: Appliance;
test.beforeAll(async () => {
  app = await new Appliance().start();
});
test.afterAll(async () => {
  await app.stop();
});

test("the API reference: endpoints by resource, each with its permission and answers; objects linked from the answers", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${app.url}/api/docs`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("smsdesk public API");
  const endpoints = page.getByRole("navigation", { name: "Endpoints" });
  await expect(endpoints.locator(":scope > ul > li > a")).toHaveText(["Contacts", "Opt-outs", "Messages", "Campaigns", "Segments", "Keywords", "Events"]);
  // 18 endpoints since POST /api/v1/media (issue 33 item 6), listed with the messages it is sent with.
  await expect(endpoints.getByRole("link")).toHaveCount(7 + 18);
  await expect(endpoints.getByRole("link", { name: "POST /api/v1/media" })).toHaveCount(1);
  await expect(page.getByRole("heading", { level: 2 })).toHaveText(["Endpoints", "Contacts", "Opt-outs", "Messages", "Campaigns", "Segments", "Keywords", "Events", "Objects"]);
  await page.screenshot({ path: join(shots, "api-docs-top-1280.png") });

  await endpoints.getByRole("link", { name: "POST /api/v1/contacts/upsert" }).click();
  await expect(page).toHaveURL(/#upsertContact$/);
  const upsert = page.locator("#upsertContact");
  await expect(upsert).toBeInViewport();
  await expect(upsert.getByRole("heading", { level: 3 })).toHaveText("POST /api/v1/contacts/upsert");
  await expect(upsert.locator(".summary")).toHaveText("Create or update the contact with this phone");
  await expect(upsert.locator(".scope")).toHaveText("Permission: contacts:write");
  await expect(upsert.getByRole("heading", { level: 4 })).toHaveText(["Parameters", "Request body (JSON)", "Answers"]);
  const body = upsert.locator("table").nth(1);
  await expect(body.getByRole("row").filter({ hasText: "replaceTags" })).toHaveText(
    "replaceTagsbooleantrue: the tags given become the contact's whole list; otherwise they are added to its tags",
  );
  await expect(body.getByRole("row").filter({ hasText: "phone" }).first()).toHaveText("phonestring (1 to 40 characters)required");
  const answers = upsert.locator("table").nth(2).locator("tbody tr");
  await expect(answers.locator("td:first-child")).toHaveText(["200", "201", "400", "401", "402", "403", "422", "429"]);
  await expect(answers.nth(0)).toHaveText("200The contact that had this phone, updatedContact");
  await expect(answers.nth(3)).toHaveText("401No API key, or one unknown, revoked or expiredError");
  await expect(answers.nth(5)).toHaveText("403The API key lacks the permission this operation needsError");
  await page.screenshot({ path: join(shots, "api-docs-upsert-1280.png") });

  // The answer's body names an object: its fields, each with its type.
  await answers.nth(0).getByRole("link", { name: "Contact" }).click();
  await expect(page).toHaveURL(/#schema-Contact$/);
  const contact = page.locator("#schema-Contact");
  await expect(contact).toBeInViewport();
  await expect(contact.getByRole("row").filter({ hasText: "status" })).toHaveText("statusone of subscribed, opted_outalways");
  await expect(contact.getByRole("row").filter({ hasText: "tags" })).toHaveText("tagslist of stringalways");
  await page.screenshot({ path: join(shots, "api-docs-contact-1280.png") });

  // At 390 px the page fits the screen: wide tables scroll inside their own box.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${app.url}/api/docs#sendMessage`);
  const send = page.locator("#sendMessage");
  await expect(send).toBeInViewport();
  await expect(send.locator(".scope")).toHaveText("Permission: messages:send");
  await expect(send.locator("table").nth(2).locator("tbody tr td:first-child")).toHaveText(["202", "400", "401", "402", "403", "422", "429"]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await page.screenshot({ path: join(shots, "api-docs-send-390.png") });
});

// Issue 28 item 2 for Google sign-in, walked in Chromium: an account made by "Continue with Google" lands on the setup
// wizard, as one made with a password does after its email's verification, and finishing it ends on /dashboard; the
// next Google sign-in goes home. Google is a local stand-in (authorization, token and userinfo endpoints, as
// tests/support/fakes/google.ts is for the API tests; this runner is Node, so it is served with node:http).
// Screenshots at 1280 and 390 pixels wide go to dist/screenshots/google-onboarding/.
import { expect, test, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Appliance } from "./harness";

const shots = join(import.meta.dirname, "..", "..", "dist", "screenshots", "google-onboarding");
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const CLIENT_ID = "smsdesk-test.apps.googleusercontent.com";
const PROFILE = { sub: `1000${Date.now()}`, email: `gina${Date.now()}@example.com`, email_verified: true, given_name: "Gina", family_name: "Google" };

/** Google's consent answered at once for PROFILE: the code back to the redirect URI, then the token and the profile. */
function fakeGoogle(): Server {
  const codes = new Set<string>();
  const tokens = new Set<string>();
  return createServer((req, res) => {
    const url = new URL(req.url!, "http://fake");
    if (url.pathname === "/authorize") {
      const back = new URL(url.searchParams.get("redirect_uri")!);
      const code = randomBytes(16).toString("hex");
      codes.add(code);
      back.searchParams.set("state", url.searchParams.get("state")!);
      back.searchParams.set("code", code);
      res.writeHead(302, { location: back.toString() }).end();
    } else if (url.pathname === "/token") {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const form = new URLSearchParams(body);
        if (!codes.delete(form.get("code") ?? "") || form.get("client_id") !== CLIENT_ID) return void res.writeHead(400).end('{"error":"invalid_grant"}');
        const token = randomBytes(16).toString("hex");
        tokens.add(token);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3599 }));
      });
    } else if (url.pathname === "/userinfo" && tokens.has((req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(PROFILE));
    } else res.writeHead(404).end();
  });
}

let app: Appliance;
let google: Server;
test.beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  google = fakeGoogle();
  await new Promise<void>((resolve) => google.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(google.address() as AddressInfo).port}`;
  app = await new Appliance().start({
    GOOGLE_CLIENT_ID: CLIENT_ID,
    GOOGLE_CLIENT_SECRET: "test-secret",
    GOOGLE_AUTH_URL: `${base}/authorize`,
    GOOGLE_TOKEN_URL: `${base}/token`,
    GOOGLE_USERINFO_URL: `${base}/userinfo`,
  });
});
test.afterAll(async () => {
  await app.stop();
  await new Promise((resolve) => google.close(resolve));
});

// A browser in London, not at the account's defaults (New York, the United States): the wizard's zone and country
// come from the browser, as after a password sign-up's verification (business-profile.pw.ts).
test.use({ locale: "en-GB", timezoneId: "Europe/London" });

async function both(page: Page, name: string) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(shots, `${name}-390.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

test("a new account made by Continue with Google gets the setup wizard, which ends on /dashboard; the next sign-in goes home", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await page.goto(`${app.url}/auth`);
  await page.getByRole("link", { name: "Continue with Google" }).click();
  await expect(page).toHaveURL(`${app.url}/onboarding`);
  await expect(page.getByRole("heading", { name: "Tell us about your business" })).toBeVisible();
  // Signed in by the httpOnly cookie alone (issue 27 item 5).
  await app.expectSessionOnlyInCookie(page);
  // Nothing answered yet: the wizard's first step, empty but for where the browser is.
  await expect(page.getByLabel("Business name")).toHaveValue("");
  await expect(page.getByLabel("Industry")).toHaveValue("");
  await expect(page.getByLabel("Time zone")).toHaveValue("Europe/London");
  await expect(page.getByLabel("Default country")).toHaveValue("GB");
  await both(page, "wizard");

  // Answered with the browser's zone and country kept: the account takes them.
  await page.getByLabel("Business name").fill("Gina's Garden");
  await page.getByLabel("Industry").selectOption("Retail & E-commerce");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("radio").first().check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("checkbox").first().check();
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "You're all set, Gina's Garden!" })).toBeVisible();
  await page.getByRole("button", { name: "Go to Dashboard" }).click();
  await expect(page).toHaveURL(`${app.url}/dashboard`);
  await expect(page.getByRole("heading", { name: "Results & Stats" })).toBeVisible();
  await both(page, "dashboard");
  const call = await app.apiAs(page);
  const user = await call<{ timezone: string; business: { name: string; industry: string } }>("/api/auth/user");
  expect([user.timezone, user.business.name, user.business.industry]).toEqual(["Europe/London", "Gina's Garden", "Retail & E-commerce"]);
  expect(await call("/api/user/settings")).toMatchObject({ defaultCountry: "GB", defaultCountryChosen: true });

  // Signed out, Google again: the same account, home this time.
  await page.getByRole("button", { name: "Sign Out" }).first().click();
  await page.goto(`${app.url}/auth`);
  await page.getByRole("link", { name: "Continue with Google" }).click();
  await expect(page.getByRole("heading", { name: /^Welcome( back)?, Gina!$/ })).toBeVisible();
  await expect(page).toHaveURL(`${app.url}/?auth=google`);
  await app.expectSessionOnlyInCookie(page);
  await both(page, "home-next-sign-in");
});

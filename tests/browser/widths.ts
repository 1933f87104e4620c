// Screenshots of a page at a desktop's and a phone's width (issue 28's "at 1280 and 390 px"), each checked for
// sideways scrolling, into dist/screenshots/<folder>/<name>-1280.png and -390.png; the page is left at 1280.
import { expect, type Page } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export async function atBothWidths(page: Page, folder: string, name: string) {
  const dir = join(import.meta.dirname, "..", "..", "dist", "screenshots", folder);
  mkdirSync(dir, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(width);
    // From the top: a full-page screenshot of a scrolled page draws the sticky header where the scroll left it.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

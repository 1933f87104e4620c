// The help pages once said that Chat & Replies and text-to-join keywords "come in a later version" while both were
// shipped: a page must say what the product does. The app-store badges of /pwa-demo ("Coming Soon") are the spec's
// and true (there is no store app).
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

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

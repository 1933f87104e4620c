// The UI reaches the server only through ui/api/<domain>.ts: a URL written anywhere else in ui/ fails here, so every
// call keeps the server's answer type and its error code in one place. What the screens share with the server (types,
// stateless constants) comes from shared/, never from src/.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = join(import.meta.dir, "..", "..");
const ui = join(root, "ui");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

/** A string or template literal that starts with /api/ (comments may name URLs). */
const API_LITERAL = /["'`]\/api\//;

describe("the UI's data layer", () => {
  test("no /api/ URL outside ui/api/", () => {
    const found = sources(ui)
      .filter((file) => !relative(ui, file).startsWith("api/"))
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, i) =>
            API_LITERAL.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line)
              ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`]
              : [],
          ),
      );
    expect(found).toEqual([]);
  });

  test("ui/ imports nothing of src/ but the route table's type; shared/ imports nothing of src/, ui/ or db/", () => {
    expect(crossings(read(ui), read(join(root, "shared")))).toEqual([]);
  });

  test("the check finds a screen importing src/, a value of src/app, and shared/ importing src/, ui/ or db/", () => {
    const screens = new Map([
      [join(ui, "api/types.ts"), `import type { App } from "../../src/app";`],
      [join(ui, "routes/help.tsx"), `import { PLAIN_RULES } from "../../src/keywords/rules";\nimport { AB } from "../../shared/ab";`],
      [join(ui, "api/app.ts"), `import { createApp } from "../../src/app";`],
    ]);
    const shared = new Map([
      [join(root, "shared/a.ts"), `import { b } from "./b";\nimport { db } from "../db/client";`],
      [join(root, "shared/b.ts"), `export { x } from "../src/x";\nconst y = import("../ui/lib/y");`],
    ]);
    expect(crossings(screens, shared)).toEqual([
      "ui/routes/help.tsx imports src/keywords/rules",
      "ui/api/app.ts imports src/app",
      "shared/a.ts imports db/client",
      "shared/b.ts imports src/x",
      "shared/b.ts imports ui/lib/y",
    ]);
  });
});

/** Each file's text, by path. */
const read = (dir: string) => new Map(sources(dir).map((file) => [file, readFileSync(file, "utf8")]));

// Static imports and re-exports, and dynamic import("...").
const IMPORT = /^[ \t]*(?:import|export)[ \t]+(type[ \t]+)?[^;'"]*?from[ \t]*["'](\.[^"']+)["']|\bimport\(\s*["'](\.[^"']+)["']\s*\)/gm;

/**
 * What crosses the lines: a file of ui/ importing src/ (the route table's type, `import type { App }` from src/app in
 * ui/api/types.ts, excepted: only the server's code can describe its routes, and a type leaves nothing in the
 * bundle), and a file of shared/ importing anything outside shared/ (it is below every floor of both sides).
 */
function crossings(screens: Map<string, string>, shared: Map<string, string>): string[] {
  const out: string[] = [];
  const each = (files: Map<string, string>, crosses: (to: string, m: RegExpMatchArray, from: string) => boolean) => {
    for (const [file, text] of files) {
      for (const m of text.matchAll(IMPORT)) {
        const to = relative(root, resolve(dirname(file), m[2] ?? m[3]!));
        if (crosses(to, m, relative(root, file))) out.push(`${relative(root, file)} imports ${to}`);
      }
    }
  };
  each(screens, (to, m, from) => to.startsWith("src/") && !(from === "ui/api/types.ts" && to === "src/app" && m[1] && /\{\s*App\s*\}/.test(m[0])));
  each(shared, (to) => !to.startsWith("shared/"));
  return out;
}

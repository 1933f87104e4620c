// The UI reaches the server only through ui/api/<domain>.ts: a URL written anywhere else in ui/ fails here, so every
// call keeps the server's answer type and its error code in one place.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

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

  test("ui/api imports the server's code for its types only", () => {
    const valueImports = sources(join(ui, "api")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/^import (?!type )[^;]*from "(\.\.\/\.\.\/src\/[^"]+)";/gm)].map(
        (m) => `${relative(root, file)}: ${m[1]}`,
      ),
    );
    expect(valueImports).toEqual([]);
  });
});

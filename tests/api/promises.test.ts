// Issue 30 items 2-3: records answer Promises now, and a caller that forgets to await one still compiles. This test
// reads src/ and db/ with TypeScript's type checker (tests/support/promises.ts) and fails on a Promise dropped on the
// floor: a call left unawaited as a statement, a Promise used as a condition, an async callback given to filter,
// some, every, find or forEach. Then the same check on planted files, to show it finds each kind.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { droppedPromises, programOf } from "../support/promises";

const ROOT = resolve(import.meta.dir, "../..");

/** None today; an entry names `file:line` and says why the Promise is meant to run on its own. */
const ALLOWED: Record<string, string> = {};

describe("no Promise dropped on the floor", () => {
  test(
    "in src/ and db/",
    () => {
      const found = droppedPromises(programOf(ROOT), ROOT, (file) => file.startsWith("src/") || file.startsWith("db/"));
      const unexpected = found.filter((f) => !(`${f.file}:${f.line}` in ALLOWED)).map((f) => `${f.file}:${f.line} ${f.what}: ${f.text}`);
      expect(unexpected).toEqual([]);
    },
    240_000,
  );
});

describe("the check itself, on planted files", () => {
  const dir = mkdtempSync(join(tmpdir(), "promises-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const plant = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const records = plant(
    "records.ts",
    `export async function hasMessages(id: string): Promise<boolean> { return id.length > 0; }
export async function markSent(id: string): Promise<void> { void id; }
export function countNow(id: string): number { return id.length; }
`,
  );
  const flow = plant(
    "flow.ts",
    `import { countNow, hasMessages, markSent } from "./records";
export async function flow(ids: string[], pending: Promise<void> | null) {
  markSent("a");                                   // dropped
  if (hasMessages("a")) countNow("a");             // always true
  const some = !hasMessages("b") ? 1 : 2;          // always false
  const kept = ids.filter(async (id) => hasMessages(id)); // keeps every id
  ids.forEach(async (id) => { await markSent(id); });     // runs unawaited
  await markSent("ok");
  void markSent("fire and forget, said so");
  markSent("handled").catch(() => {});
  const p = markSent("held");
  await p;
  if (pending) await pending;                      // a real question: is there one?
  if (await hasMessages("c")) countNow("c");
  return [some, kept, ids.filter((id) => countNow(id) > 0)];
}
`,
  );

  test("finds each kind and nothing else", () => {
    const program = programOf(ROOT, [records, flow]);
    const found = droppedPromises(program, dir, () => true).map((f) => `${f.file}:${f.line} ${f.what}`);
    expect(found).toEqual([
      "flow.ts:3 a Promise neither awaited, returned nor marked void",
      "flow.ts:4 a Promise used as a condition (always true): await it",
      "flow.ts:5 a Promise used as a condition (always true): await it",
      "flow.ts:6 an async callback given to filter (its Promise is not awaited)",
      "flow.ts:7 an async callback given to forEach (its Promise is not awaited)",
    ]);
  });
});

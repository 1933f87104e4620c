import { droppedPromises, programOf } from "./tests/support/promises";
const root = process.cwd();
const t = performance.now();
const program = programOf(root);
const found = droppedPromises(program, root, (f) => f.startsWith("src/") || f.startsWith("db/"));
console.log(((performance.now() - t) / 1000).toFixed(1), "s", found.length);
for (const f of found) console.log(`${f.file}:${f.line} ${f.what} :: ${f.text}`);
